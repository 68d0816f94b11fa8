import { describe, expect, it } from '@jest/globals';
import { reserveForwarding } from '../../helpers/addresses';
import { sendMail } from '../../helpers/messages';
import { waitFor } from '../../helpers/webhook-receiver';
import { activity, jsonBody, PAYLOAD_FIELDS, verifiedPayload, waitForStatus, webhookSecret, webhookSetup } from '../../helpers/webhooks';

describe('the webhook payload', () => {
	const setup = webhookSetup();

	it('posts exactly the fields of spec 2.3, signed per Standard Webhooks with the account secret', async () => {
		const { server, receiver, account: alice } = setup;
		await reserveForwarding(server, alice.key, 'payload@hooks.test', { webhook: `${receiver.url}/hook` });
		const [messageId] = await sendMail(server, {
			from: '"Ann" <ann@example.org>',
			to: 'Payload@hooks.test',
			subject: 'Payload check',
			text: 'line one\nline two',
			headers: { 'X-Repeated': ['first', 'second'] },
		});
		const request = await waitFor(() => receiver.requests[0], 'the webhook request');

		expect(request.method).toBe('POST');
		expect(request.url).toBe('/hook');
		expect(request.headers['content-type']).toBe('application/json');
		const secret = await webhookSecret(server, alice.key);
		expect(secret).toMatch(/^whsec_/);
		const verified = verifiedPayload(secret, request);
		const payload = jsonBody(request);
		expect(verified).toEqual(payload);
		expect(Object.keys(payload).sort()).toEqual([...PAYLOAD_FIELDS].sort());
		expect(payload).toMatchObject({
			_id: messageId,
			subject: 'Payload check',
			priority: 'normal',
			from: [{ address: 'ann@example.org', name: 'Ann' }],
			to: [{ address: 'payload@hooks.test', name: '' }],
			originalInbox: 'payload@hooks.test',
			inbox: 'payload@hooks.test',
			domain: 'hooks.test',
			ip: '127.0.0.1',
		});
		expect(payload.text.trim()).toBe('line one\nline two');
		expect(payload.encryptedInbox).toMatch(/^inbox-[0-9a-f]{40}$/);
		expect(payload.messageId).toMatch(/^<.+>$/);
		expect(payload.receivedDate).toBe(payload.received);
		expect(new Date(payload.date).toISOString()).toBe(payload.date);
		for (const [name, value] of Object.entries(payload.headers)) {
			expect(name).toBe(name.toLowerCase());
			expect(typeof value).toBe('string');
		}
		expect(payload.headers.subject).toBe('Payload check');
		expect(payload.headers['x-repeated']).toBe('first\nsecond');
		expect(payload.raw).toContain('\r\n');
		expect(payload.raw.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
		expect(payload.raw).toContain('Subject: Payload check');

		const delivered = await waitForStatus(server, alice.key, 'payload@hooks.test', messageId, 'delivered');
		expect(delivered).toMatchObject({
			_id: request.headers['webhook-id'],
			messageId,
			address: 'payload@hooks.test',
			attempts: 1,
			lastStatusCode: 200,
			nextRetry: null,
		});
		const [entry] = await activity(server, alice.key, '?address=payload%40hooks.test');
		expect(entry).toMatchObject({
			deliveryId: delivered._id,
			messageId,
			url: `${receiver.url}/hook`,
			attempt: 1,
			status: 'delivered',
			statusCode: 200,
			error: null,
			nextRetry: null,
		});
	});
});
