import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { reserveForwarding } from '../../helpers/addresses';
import { enc, sendMail } from '../../helpers/messages';
import { waitFor } from '../../helpers/webhook-receiver';
import {
	activity,
	FAST,
	firstPost,
	jsonBody,
	PAYLOAD_FIELDS,
	verifiedPayload,
	waitForStatus,
	webhookSecret,
	webhookSetup,
} from '../../helpers/webhooks';

describe('the webhook payload', () => {
	const setup = webhookSetup();

	it('posts every field of spec 2.3 and html, cc, attachments and threadId (no more), signed per Standard Webhooks with the account secret', async () => {
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
		expect(payload).toMatchObject({ html: null, cc: null, attachments: [] });

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

	it('adds the HTML body as received, Cc, and the attachments with a url that downloads the same bytes with the key', async () => {
		const { server, receiver, account: alice } = setup;
		const email = 'whole@hooks.test';
		await reserveForwarding(server, alice.key, email, { webhook: `${receiver.url}/whole` });
		const pdf = Buffer.from(Array.from({ length: 70_000 }, (_, index) => (index * 7) % 256));
		const html = '<p style="color:#c00">Invoice <b>42</b> <img src="cid:logo@acme"></p>';
		const [messageId] = await sendMail(server, {
			from: 'billing@acme.example',
			to: email,
			cc: ['"Carl" <carl@example.org>', 'dora@example.org'],
			subject: 'Invoice 42',
			text: 'See the attached invoice.',
			html,
			attachments: [
				{ filename: 'invoice.pdf', content: pdf, contentType: 'application/pdf' },
				{ filename: 'logo.png', content: Buffer.from('png bytes'), contentType: 'image/png', cid: 'logo@acme' },
			],
		});
		const payload = jsonBody(await firstPost(receiver, '/whole'));

		expect(payload.html).toBe(html);
		expect(payload.cc).toEqual([
			{ address: 'carl@example.org', name: 'Carl' },
			{ address: 'dora@example.org', name: '' },
		]);
		const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');
		const base = `${server.httpUrl}/api/addresses/${enc(email)}/messages/${messageId}/attachments`;
		// In the order of the record's attachment ids: the inline image of the HTML part comes before the attached file.
		expect(payload.attachments).toEqual([
			{
				filename: 'logo.png',
				contentType: 'image/png',
				size: 9,
				checksum: md5(Buffer.from('png bytes')),
				contentId: '<logo@acme>',
				url: `${base}/${md5(Buffer.from('png bytes'))}`,
			},
			{
				filename: 'invoice.pdf',
				contentType: 'application/pdf',
				size: pdf.length,
				checksum: md5(pdf),
				contentId: null,
				url: `${base}/${md5(pdf)}`,
			},
		]);
		const [record] = (await server.api<MessageRecord[]>(`/api/addresses/${enc(email)}/messages`, { key: alice.key })).body;
		expect(payload.attachments.map((attachment) => attachment.checksum)).toEqual(record.attachments);

		// The url downloads the attachment from the API: with the owner's key for a private address.
		const download = await fetch(payload.attachments[1].url, { headers: { 'Service-Key': alice.key } });
		expect(download.status).toBe(200);
		expect(download.headers.get('content-type')).toMatch(/^application\/pdf/);
		expect(Buffer.from(await download.arrayBuffer()).equals(pdf)).toBe(true);
		expect((await fetch(payload.attachments[1].url)).status).toBe(401);
		const mallory = await server.createAccount('mallory-attachments');
		expect((await fetch(payload.attachments[1].url, { headers: { 'Service-Key': mallory.key } })).status).toBe(403);
	});
});

describe('the attachment links of a payload behind a proxy (--public-url)', () => {
	const setup = webhookSetup('alice', { ...FAST, publicUrl: 'https://mail.example.com/mailroom' });

	it('start at the public URL', async () => {
		const { server, receiver, account: alice } = setup;
		await reserveForwarding(server, alice.key, 'proxied@hooks.test', { webhook: `${receiver.url}/proxied` });
		const [messageId] = await sendMail(server, {
			to: 'proxied@hooks.test',
			attachments: [{ filename: 'a.txt', content: 'attached' }],
		});
		const [attachment] = jsonBody(await firstPost(receiver, '/proxied')).attachments;
		expect(attachment.url).toBe(
			`https://mail.example.com/mailroom/api/addresses/proxied%40hooks.test/messages/${messageId}/attachments/${attachment.checksum}`,
		);
		expect(server.publicUrl).toBe('https://mail.example.com/mailroom');
	});
});
