import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { WebhookReceiver, waitFor } from '../../helpers/webhook-receiver';
import { activity, FAST, verifiedPayload, webhookSecret } from '../../helpers/webhooks';
import { expectError, sendMail } from '../../helpers/messages';
import { postOutgoing, senderAccount } from '../../helpers/outgoing';
import { queryValue } from '../../helpers/database';

/** Room for a delivery that should not come (a second reply, a copy), before saying none came. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 400));

describe('reply hooks (replyHook of POST /api/outgoing-messages)', () => {
	let server: TestMailroom;
	let receiver: WebhookReceiver;
	let ann: { id: string; key: string };
	let sent = 0;

	beforeAll(async () => {
		receiver = new WebhookReceiver();
		await receiver.listen();
		server = await startTestMailroom({ domains: ['local.test'], ...FAST });
		ann = await senderAccount(server, 'ann', 'ann@local.test', 100);
		// Another of ann's addresses: a copy of her own message stored there is in her thread, and no reply.
		expect((await server.api('/api/addresses/ann.desk@local.test', { method: 'POST', key: ann.key })).status).toBe(200);
	});
	afterAll(async () => {
		await server.stop();
		await receiver.close();
	});
	beforeEach(() => {
		receiver.requests.length = 0;
		receiver.reply = () => ({ status: 200 });
	});

	/** Sends from ann@local.test with a reply hook to the receiver; the sent record's id and Message-ID. */
	async function sendHooked(replyHook: Record<string, unknown> = {}) {
		const path = `/resume/${++sent}`;
		const response = await postOutgoing<{ _id: string; threadId: string }>(server, ann.key, {
			from: 'ann@local.test',
			to: 'ann.desk@local.test',
			subject: 'May I deploy?',
			text: 'Answer this mail to approve.',
			replyHook: { url: `${receiver.url}${path}`, ...replyHook },
		});
		expect(response.status).toBe(200);
		return { ...response.body, path, messageId: `<${response.body._id}@local.test>` };
	}

	/** Bob answers over SMTP, naming the sent message in In-Reply-To. */
	const reply = (messageId: string, text = 'Yes, go ahead.\n\nOn Monday Ann wrote:\n> Answer this mail to approve.\n') =>
		sendMail(server, { from: 'bob@elsewhere.test', to: 'ann@local.test', subject: 'Re: May I deploy?', text, inReplyTo: messageId });

	it('posts the first reply, signed, once, to the hook URL; its own local copy and later replies do not fire it', async () => {
		const hooked = await sendHooked();
		await settle();
		expect(receiver.requests).toEqual([]);

		const [replyId] = await reply(hooked.messageId);
		const [request] = await waitFor(() => (receiver.requests.length ? receiver.requests : undefined), 'the reply delivered');
		expect(request.url).toBe(hooked.path);
		const payload = verifiedPayload(await webhookSecret(server, ann.key), request);
		expect(payload).toMatchObject({ _id: replyId, inbox: 'ann@local.test', threadId: hooked.threadId, strippedText: 'Yes, go ahead.' });
		expect(payload.from).toEqual([{ address: 'bob@elsewhere.test', name: '' }]);

		await reply(hooked.messageId, 'And once more.');
		await settle();
		expect(receiver.requests).toHaveLength(1);
		const logged = await activity(server, ann.key);
		expect(logged.filter((entry) => entry.url.endsWith(hooked.path)).map((entry) => [entry.messageId, entry.status])).toEqual([
			[replyId, 'delivered'],
		]);
	});

	it('an out-of-office (Auto-Submitted) answers nothing: the hook waits for the person', async () => {
		const hooked = await sendHooked();
		await sendMail(server, {
			from: 'bob@elsewhere.test',
			to: 'ann@local.test',
			subject: 'Out of office',
			text: 'I am away until Monday.',
			inReplyTo: hooked.messageId,
			headers: { 'Auto-Submitted': 'auto-replied' },
		});
		await settle();
		expect(receiver.requests).toEqual([]);
		const [replyId] = await reply(hooked.messageId);
		await waitFor(() => receiver.requests.length === 1, 'the reply delivered');
		expect(JSON.parse(receiver.requests[0].body)).toMatchObject({ _id: replyId });
	});

	it('matches a reply by its thread: References naming the sent message, no In-Reply-To', async () => {
		const hooked = await sendHooked();
		await sendMail(server, { from: 'bob@elsewhere.test', to: 'ann@local.test', text: 'ok', references: [hooked.messageId] });
		await waitFor(() => receiver.requests.length === 1, 'the reply delivered');
		expect(receiver.requests[0].url).toBe(hooked.path);
	});

	it('retries a hook URL that is down until it answers (n8n restarting)', async () => {
		receiver.reply = (_request, index) => ({ status: index < 2 ? 503 : 200 });
		const hooked = await sendHooked();
		await reply(hooked.messageId);
		await waitFor(() => receiver.requests.some((request) => request.status === 200), 'the third attempt', 5000);
		expect(receiver.requests.map((request) => request.status)).toEqual([503, 503, 200]);
	});

	it("retries what n8n answers before it can resume (starting up, its routes not yet there, the execution still running) with the queue's backoff, until the hook expires", async () => {
		const statuses = (path: string) => receiver.requests.filter((request) => request.url === path).map((request) => request.status);
		// What n8n 2.11.2 answers a resume URL as it starts: 200 with a page saying so, then Express's 404 page until it has
		// registered its routes; then 409 until it has stored the execution as waiting.
		const answers = [
			{ status: 200, body: 'n8n is starting up. Please wait' },
			{ status: 404, body: '<pre>Cannot POST /webhook-waiting/7</pre>' },
			{ status: 409, body: 'The execution "7" is running already.' },
		];
		receiver.reply = (_request, index) => answers[index] ?? { status: 200, body: '{"received":true}' };
		const waiting = await sendHooked();
		const [replyId] = await reply(waiting.messageId);
		await waitFor(() => statuses(waiting.path).length === 4, 'the fourth attempt', 5000);
		expect(statuses(waiting.path)).toEqual([200, 404, 409, 200]);
		const logged = (await activity(server, ann.key)).filter((entry) => entry.messageId === replyId);
		expect(logged.map((entry) => [entry.status, entry.error])).toEqual([
			['delivered', null],
			['retrying', 'HTTP 409: The execution "7" is running already.'],
			['retrying', 'HTTP 404: <pre>Cannot POST /webhook-waiting/7</pre>'],
			['retrying', 'HTTP 200: n8n is starting up. Please wait'],
		]);

		// A hook that expires while n8n still answers 409: the delivery fails at the first retry due after the expiry.
		receiver.requests.length = 0;
		const expiring = await sendHooked();
		const expire = () =>
			queryValue(server, 'UPDATE webhook_deliveries SET reply_hook_expires = ? WHERE url LIKE ?', [Date.now(), `%${expiring.path}`]);
		receiver.reply = (_request, index) => ({ status: 409, until: index === 0 ? expire() : undefined });
		await reply(expiring.messageId);
		const attempts = () => activity(server, ann.key).then((entries) => entries.filter((entry) => entry.url.endsWith(expiring.path)));
		const failed = await waitFor(async () => (await attempts()).find((entry) => entry.status === 'failed'), 'the delivery failed', 5000);
		expect(failed.error).toBe('HTTP 409 (the reply hook expired)');
		expect(statuses(expiring.path)).toEqual([409, 409]);
	});

	it('an expired hook matches nothing, and the pruning deletes it', async () => {
		const hooked = await sendHooked({ expiresAt: new Date(Date.now() + 3600_000).toISOString() });
		expect(await queryValue(server, 'SELECT count(*) FROM reply_hooks WHERE outgoing_id = ?', [hooked._id])).toBe(1);
		await queryValue(server, 'UPDATE reply_hooks SET expires_at = ? WHERE outgoing_id = ?', [Date.now() - 1, hooked._id]);
		await reply(hooked.messageId);
		await settle();
		expect(receiver.requests).toEqual([]);
		expect(await server.store.replyHooks.deleteExpired(Date.now())).toBeGreaterThanOrEqual(1);
		expect(await queryValue(server, 'SELECT count(*) FROM reply_hooks WHERE outgoing_id = ?', [hooked._id])).toBe(0);
	});

	it('refuses a hook it could never keep, naming the field, and sends nothing', async () => {
		const send = (replyHook: unknown) =>
			postOutgoing(server, ann.key, { from: 'ann@local.test', to: 'ann.desk@local.test', subject: 's', text: 't', replyHook });
		expectError(await send({ url: receiver.url, secret: 'x' }), 400, /secret/, 'replyHook.secret');
		expectError(await send({ url: 'ftp://example.com/x' }), 400, /http/, 'replyHook.url');
		expectError(await send({ url: receiver.url, expiresAt: '2020-01-01T00:00:00Z' }), 400, /future/, 'replyHook.expiresAt');
		expectError(await send({ url: receiver.url, expiresAt: '2099-01-01T00:00:00Z' }), 400, /366 days/, 'replyHook.expiresAt');
		expect(await queryValue(server, 'SELECT count(*) FROM outgoing_messages WHERE subject = ?', ['s'])).toBe(0);
	});
});
