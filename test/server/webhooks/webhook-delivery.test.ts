import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { enc } from '../../helpers/messages';
import { WebhookReceiver, waitFor } from '../../helpers/webhook-receiver';
import {
	activity,
	deliveredMessageId,
	FAST,
	jsonBody,
	PAYLOAD_FIELDS,
	verifiedPayload,
	waitForStatus,
	webhookSecret,
	webhookStatus,
	withWebhook,
} from '../../helpers/effects-webhooks';

describe('webhook delivery', () => {
	let server: TestMailroom;
	let receiver: WebhookReceiver;
	let alice: { id: string; key: string };

	beforeAll(async () => {
		server = await startTestMailroom(FAST);
		receiver = new WebhookReceiver();
		await receiver.listen();
		alice = server.createAccount('alice');
	});
	afterAll(async () => {
		await server.stop();
		await receiver.close();
	});
	beforeEach(() => {
		receiver.requests.length = 0;
		receiver.reply = () => ({ status: 200 });
	});

	it('posts exactly the fields of spec 2.3, signed per Standard Webhooks with the account secret', async () => {
		await withWebhook(server, alice.key, 'payload@hooks.test', `${receiver.url}/hook`);
		const messageId = await server
			.send({
				from: '"Ann" <ann@example.org>',
				to: 'Payload@hooks.test',
				subject: 'Payload check',
				text: 'line one\nline two',
				headers: { 'X-Repeated': ['first', 'second'] },
			})
			.then((info) => /stored as (\S+)/.exec(info.response)![1]);
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

	it('routes mail sent to the encryptedInbox address into the real inbox', async () => {
		await withWebhook(server, alice.key, 'secret-box@hooks.test', receiver.url);
		await deliveredMessageId(server, 'secret-box@hooks.test');
		const first = jsonBody(await waitFor(() => receiver.requests[0], 'the first webhook'));
		const encrypted = `${first.encryptedInbox}@hooks.test`;

		await deliveredMessageId(server, encrypted, 'via the alias');
		const second = jsonBody(await waitFor(() => receiver.requests[1], 'the second webhook'));
		expect(second).toMatchObject({
			subject: 'via the alias',
			inbox: 'secret-box@hooks.test',
			originalInbox: encrypted,
			encryptedInbox: first.encryptedInbox,
		});
		const listing = await server.api<MessageRecord[]>(`/api/addresses/${enc('secret-box@hooks.test')}/messages`, { key: alice.key });
		expect(listing.body.map((m) => m.subject)).toContain('via the alias');
		// An encrypted token of one domain does not route on another.
		await deliveredMessageId(server, `${first.encryptedInbox}@elsewhere.test`);
		const elsewhere = await server.api<MessageRecord[]>(`/api/addresses/${enc(`${first.encryptedInbox}@elsewhere.test`)}/messages`);
		expect(elsewhere.body).toHaveLength(1);
	});

	it("uses the domain's catch-all webhook for addresses without one, never for another account's address", async () => {
		const bob = server.createAccount('bob-catchall');
		await withWebhook(server, alice.key, 'all@catch.test', `${receiver.url}/catch-all`);
		server.db.prepare('UPDATE addresses SET catch_all = ? WHERE email = ?').run('catch.test', 'all@catch.test');
		// Reserved by alice but without a webhook: the catch-all's applies.
		expect((await server.api(`/api/addresses/${enc('nohook@catch.test')}`, { method: 'POST', key: alice.key })).status).toBe(200);
		// Reserved by bob: alice's catch-all must not receive it.
		server.db
			.prepare(
				"INSERT INTO addresses (email, owner, created, updated) VALUES ('bobs@catch.test', ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
			)
			.run(bob.id);

		const unreserved = await deliveredMessageId(server, 'anyone@catch.test');
		const noHook = await deliveredMessageId(server, 'nohook@catch.test');
		const bobs = await deliveredMessageId(server, 'bobs@catch.test');
		await waitFor(() => receiver.requests.length >= 2, 'two catch-all deliveries');
		const ids = receiver.requests.map((request) => jsonBody(request)._id).sort();
		expect(ids).toEqual([unreserved, noHook].sort());
		expect(receiver.requests.every((request) => request.url === '/catch-all')).toBe(true);
		expect((await webhookStatus(server, bob.key, 'bobs@catch.test', bobs)).status).toBe(404);
	});
});
