import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { WebhookAttempt, WebhookAttemptDetail } from 'mailroom-server/dist/schemas/webhook';
import type { LinkCheck } from 'mailroom-server/dist/schemas/link-check';
import { startTestMailroom, type TestMailroom } from '../../../helpers/mailroom';
import { enc, sendMail } from '../../../helpers/messages';
import { WebhookReceiver, waitFor } from '../../../helpers/webhook-receiver';

/** The response the receiver sends: larger than the 16 KB the log keeps of it. */
const LARGE_ANSWER = 'x'.repeat(20_000);

describe('GET /api/webhook-attempts/:attemptId and GET …/link-check', () => {
	let server: TestMailroom;
	const receiver = new WebhookReceiver();
	const inbox = 'hooked@example.test';
	let owner: { id: string; key: string };
	let stranger: { id: string; key: string };

	beforeAll(async () => {
		server = await startTestMailroom();
		await receiver.listen();
		receiver.reply = () => ({ status: 202, headers: { 'x-receiver': 'test' }, body: LARGE_ANSWER });
		[owner, stranger] = await Promise.all([server.createAccount('owner'), server.createAccount('stranger')]);
		await server.api(`/api/addresses/${enc(inbox)}`, { method: 'POST', key: owner.key });
		await server.api(`/api/addresses/${enc(inbox)}`, { method: 'PUT', key: owner.key, body: { webhook: `${receiver.url}/hook` } });
	});
	afterAll(async () => {
		await server.stop();
		await receiver.close();
	});

	const attempts = async () => (await server.api<WebhookAttempt[]>('/api/webhook-activity', { key: owner.key })).body;

	it('gives an attempt with the request it sent and the response it got, the response body cut with its whole size', async () => {
		const [messageId] = await sendMail(server, { to: inbox, subject: 'Logged', text: `see ${receiver.url}/page` });
		const [attempt] = await waitFor(async () => ((await attempts()).length ? attempts() : undefined), 'an attempt');
		const { status, body } = await server.api<WebhookAttemptDetail>(`/api/webhook-attempts/${attempt._id}`, { key: owner.key });
		expect(status).toBe(200);
		expect(body).toMatchObject({ _id: attempt._id, messageId, status: 'delivered', statusCode: 202 });
		const sent = receiver.requests[0];
		expect(body.request).toMatchObject({
			method: 'POST',
			url: `${receiver.url}/hook`,
			body: sent.body,
			bodyBytes: Buffer.byteLength(sent.body),
			bodyTruncated: false,
		});
		const names = body.request!.headers.map((header) => header.name.toLowerCase());
		expect(names).toEqual(expect.arrayContaining(['webhook-id', 'webhook-signature', 'content-type', 'user-agent']));
		expect(body.response).toMatchObject({
			statusCode: 202,
			bodyBytes: LARGE_ANSWER.length,
			bodyTruncated: true,
			body: LARGE_ANSWER.slice(0, 16 * 1024),
		});
		expect(body.response!.headers).toContainEqual({ name: 'x-receiver', value: 'test' });
	});

	it("answers 404 for another account's attempt and for one that never was", async () => {
		const [attempt] = await attempts();
		expect((await server.api(`/api/webhook-attempts/${attempt._id}`, { key: stranger.key })).status).toBe(404);
		expect((await server.api('/api/webhook-attempts/NoSuchAttempt1', { key: owner.key })).status).toBe(404);
		expect((await server.api(`/api/webhook-attempts/${attempt._id}`)).status).toBe(401);
	});

	it("checks a message's links for the inbox's owner, under the webhooks' SSRF policy; another account may not", async () => {
		const [message] = (await server.api<{ _id: string }[]>(`/api/addresses/${enc(inbox)}/messages`, { key: owner.key })).body;
		const { status, body } = await server.api<LinkCheck>(`/api/addresses/${enc(inbox)}/messages/${message._id}/link-check`, {
			key: owner.key,
		});
		expect(status).toBe(200);
		// testConfig allows 127.0.0.1 for every account (--webhook-allow-hosts), as webhooks are: the page answers 202.
		expect(body.links).toEqual([{ url: `${receiver.url}/page`, status: 'ok', statusCode: 202, error: null, redirects: [] }]);
		expect((await server.api(`/api/addresses/${enc(inbox)}/messages/${message._id}/link-check`, { key: stranger.key })).status).toBe(403);
	});
});
