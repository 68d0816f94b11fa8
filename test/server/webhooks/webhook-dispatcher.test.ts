import MailComposer from 'nodemailer/lib/mail-composer';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { WebhookDelivery } from 'mailroom-server/dist/schemas/webhook';
import { startTestMailroom } from '../../helpers/mailroom';
import { omit, sendMail } from '../../helpers/messages';
import { SpoolingPair } from '../../helpers/spooling-pair';
import { waitFor, WebhookReceiver } from '../../helpers/webhook-receiver';
import {
	activity,
	firstPost,
	jsonBody,
	postsTo,
	subscribe,
	verifiedPayload,
	waitForStatus,
	webhookSecret,
	webhookSetup,
	webhookStatus,
	type PayloadJson,
} from '../../helpers/webhooks';
import { reserveForwarding } from '../../helpers/addresses';
import { queryValue } from '../../helpers/database';

describe('webhook attempts and retries', () => {
	const setup = webhookSetup();

	it('retries 500s with the same webhook-id until a 2xx, logging each attempt', async () => {
		const { server, receiver, account: alice } = setup;
		receiver.reply = (_request, index) => (index < 2 ? { status: 500, body: 'boom' } : { status: 204 });
		await reserveForwarding(server, alice.key, 'flaky@hooks.test', { webhook: receiver.url });
		const [messageId] = await sendMail(server, { to: 'flaky@hooks.test' });
		const delivered = await waitForStatus(server, alice.key, 'flaky@hooks.test', messageId, 'delivered');

		expect(delivered.attempts).toBe(3);
		expect(receiver.requests).toHaveLength(3);
		expect(new Set(receiver.requests.map((request) => request.headers['webhook-id']))).toEqual(new Set([delivered._id]));
		const log = (await activity(server, alice.key, '?address=flaky%40hooks.test')).reverse();
		expect(log.map((entry) => [entry.attempt, entry.status, entry.statusCode])).toEqual([
			[1, 'retrying', 500],
			[2, 'retrying', 500],
			[3, 'delivered', 204],
		]);
		expect(log[0].error).toBe('HTTP 500: boom');
		expect(
			(await activity(server, alice.key, '?address=flaky%40hooks.test&status=retrying')).every((entry) => entry.status === 'retrying'),
		).toBe(true);
	});

	it("retries a subscription's delivery like the webhook's, and Recent Activity names the subscription", async () => {
		const { server, receiver, account: alice } = setup;
		receiver.reply = (request) => (request.url === '/sub' && postsTo(receiver, '/sub').length < 2 ? { status: 503 } : { status: 200 });
		await reserveForwarding(server, alice.key, 'sub-retry@hooks.test', { webhook: `${receiver.url}/own` });
		const subscription = await subscribe(server, alice.key, 'sub-retry@hooks.test', { url: `${receiver.url}/sub` });
		const [messageId] = await sendMail(server, { to: 'sub-retry@hooks.test' });
		await waitFor(() => postsTo(receiver, '/sub').length === 3, 'three attempts at the subscription');

		const log = (await activity(server, alice.key, '?address=sub-retry%40hooks.test')).reverse();
		const ofSubscription = log.filter((entry) => entry.subscriptionId === subscription._id);
		expect(ofSubscription.map((entry) => [entry.attempt, entry.status, entry.statusCode, entry.url])).toEqual([
			[1, 'retrying', 503, `${receiver.url}/sub`],
			[2, 'retrying', 503, `${receiver.url}/sub`],
			[3, 'delivered', 200, `${receiver.url}/sub`],
		]);
		expect(new Set(ofSubscription.map((entry) => entry.deliveryId)).size).toBe(1);
		expect(new Set(postsTo(receiver, '/sub').map((request) => request.headers['webhook-id']))).toEqual(
			new Set([ofSubscription[0].deliveryId]),
		);
		expect(log.filter((entry) => entry.subscriptionId === null).map((entry) => [entry.url, entry.status, entry.messageId])).toEqual([
			[`${receiver.url}/own`, 'delivered', messageId],
		]);
	});

	it('stops at 410, and a redelivery sends it again; only failed deliveries can be redelivered', async () => {
		const { server, receiver, account: alice } = setup;
		receiver.reply = () => ({ status: 410 });
		await reserveForwarding(server, alice.key, 'gone@hooks.test', { webhook: receiver.url });
		const [messageId] = await sendMail(server, { to: 'gone@hooks.test' });
		const failed = await waitForStatus(server, alice.key, 'gone@hooks.test', messageId, 'failed');
		expect(failed).toMatchObject({ attempts: 1, lastStatusCode: 410, nextRetry: null });
		await new Promise((resolve) => setTimeout(resolve, 600)); // longer than the whole retry schedule
		expect(receiver.requests).toHaveLength(1);

		receiver.reply = () => ({ status: 200 });
		const redeliver = await server.api<WebhookDelivery>(`/api/webhook-deliveries/${failed._id}/redeliver`, {
			method: 'POST',
			key: alice.key,
		});
		expect(redeliver.status).toBe(200);
		expect(redeliver.body.status).toBe('pending');
		await waitForStatus(server, alice.key, 'gone@hooks.test', messageId, 'delivered');
		expect(receiver.requests).toHaveLength(2);

		expect((await server.api(`/api/webhook-deliveries/${failed._id}/redeliver`, { method: 'POST', key: alice.key })).status).toBe(409);
		expect((await server.api('/api/webhook-deliveries/nosuchdelivery/redeliver', { method: 'POST', key: alice.key })).status).toBe(404);
		const mallory = await server.createAccount('mallory');
		expect((await server.api(`/api/webhook-deliveries/${failed._id}/redeliver`, { method: 'POST', key: mallory.key })).status).toBe(404);
		expect((await webhookStatus(server, mallory.key, 'gone@hooks.test', messageId)).status).toBe(404);
		expect(await activity(server, mallory.key)).toEqual([]);
	});

	it('counts a slow receiver as a timeout, retries, and fails when the schedule is used up', async () => {
		const { server, receiver, account: alice } = setup;
		receiver.reply = () => ({ status: 200, delayMs: 2000 });
		await reserveForwarding(server, alice.key, 'slow@hooks.test', { webhook: receiver.url });
		const [messageId] = await sendMail(server, { to: 'slow@hooks.test' });
		const failed = await waitForStatus(server, alice.key, 'slow@hooks.test', messageId, 'failed');
		expect(failed.attempts).toBe(4);
		expect(failed.lastStatusCode).toBeNull();
		expect(failed.lastError).toMatch(/timed out after 500 ms/);
		const log = await activity(server, alice.key, '?address=slow%40hooks.test');
		expect(log.map((entry) => entry.status)).toEqual(['failed', 'retrying', 'retrying', 'retrying']);
	});

	it('keeps retrying a receiver that is down and delivers once it is up', async () => {
		const later = new WebhookReceiver();
		await later.listen();
		const port = later.port;
		await later.close(); // nothing listens there now: connection refused
		const slowSchedule = await startTestMailroom({ webhookRetrySchedule: [0, 300, 300, 300, 300, 300, 300, 300, 300, 300] });
		try {
			const carol = await slowSchedule.createAccount('carol');
			await reserveForwarding(slowSchedule, carol.key, 'down@hooks.test', { webhook: `http://127.0.0.1:${port}/` });
			const [messageId] = await sendMail(slowSchedule, { to: 'down@hooks.test' });
			await waitFor(async () => (await activity(slowSchedule, carol.key)).length > 0, 'a failed attempt');
			const [first] = await activity(slowSchedule, carol.key);
			expect(first).toMatchObject({ status: 'retrying', statusCode: null });
			expect(first.error).toMatch(/ECONNREFUSED/);

			await later.listen(port);
			await waitForStatus(slowSchedule, carol.key, 'down@hooks.test', messageId, 'delivered');
			expect(later.requests).toHaveLength(1);
		} finally {
			await slowSchedule.stop();
			await later.close();
		}
	});
});

describe('webhook retries and Retry-After', () => {
	let receiver: WebhookReceiver;
	beforeEach(async () => {
		receiver = new WebhookReceiver();
		await receiver.listen();
	});
	afterEach(() => receiver.close());

	it('honours Retry-After on a 429 instead of the (here very long) schedule', async () => {
		const server = await startTestMailroom({ webhookRetrySchedule: [0, 3_600_000] });
		try {
			const dave = await server.createAccount('dave');
			receiver.reply = (_request, index) => (index === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 });
			await reserveForwarding(server, dave.key, 'limited@hooks.test', { webhook: receiver.url });
			const [messageId] = await sendMail(server, { to: 'limited@hooks.test' });
			await waitForStatus(server, dave.key, 'limited@hooks.test', messageId, 'delivered');
			expect(receiver.requests.map((request) => request.status)).toEqual([429, 200]);
			const [limited, delivered] = (await activity(server, dave.key)).reverse();
			expect(limited).toMatchObject({ status: 'retrying', statusCode: 429 });
			// The retry was planned exactly Retry-After (1 s) later: no jitter, not the schedule's hour.
			expect(Date.parse(limited.nextRetry!) - Date.parse(limited.time)).toBe(1000);
			expect(delivered).toMatchObject({ status: 'delivered', statusCode: 200 });
		} finally {
			await server.stop();
		}
	});
});

describe('webhook isolation between hosts', () => {
	it('keeps at most webhookHostConcurrency requests in flight per host, and a slow host does not hold up another', async () => {
		const server = await startTestMailroom({ webhookHostConcurrency: 2, webhookTimeout: 30_000 });
		const slow = new WebhookReceiver();
		const fast = new WebhookReceiver();
		let inFlight = 0;
		let maxInFlight = 0;
		// The slow host answers nothing until the fast host has its delivery: were the fast host's request queued behind the
		// slow host's, it would never come. Then the rest of the slow host's answers take 200 ms each.
		let fastDelivered!: () => void;
		const released = new Promise<void>((resolve) => (fastDelivered = resolve));
		fast.reply = () => {
			fastDelivered();
			return { status: 200 };
		};
		slow.reply = () => {
			maxInFlight = Math.max(maxInFlight, ++inFlight);
			return { status: 200, until: released.then(() => new Promise((resolve) => setTimeout(resolve, 200))).then(() => inFlight--) };
		};
		try {
			await slow.listen();
			await fast.listen();
			const owner = await server.createAccount('isolation');
			await reserveForwarding(server, owner.key, 'slow-host@hooks.test', { webhook: slow.url });
			await reserveForwarding(server, owner.key, 'fast-host@hooks.test', { webhook: fast.url });
			for (let i = 0; i < 6; i++) await sendMail(server, { to: 'slow-host@hooks.test', subject: `slow ${i}` });
			await sendMail(server, { to: 'fast-host@hooks.test' });

			await waitFor(() => fast.requests.length === 1, 'the fast host delivery, while the slow host holds its answers');
			// Held: at most two of the slow host's six have been sent.
			expect(slow.requests.length).toBeLessThanOrEqual(2);
			await waitFor(() => slow.requests.length === 6, 'all slow host deliveries');
			expect(maxInFlight).toBe(2);
		} finally {
			await server.stop();
			await slow.close();
			await fast.close();
		}
	});
});

describe('the payload of a large message', () => {
	it('is streamed from its stored pieces, and is what the same message kept in memory gets, signed the same way', async () => {
		const receiver = new WebhookReceiver();
		await receiver.listen();
		const pair = await SpoolingPair.start();
		try {
			// Multi-byte characters and line breaks everywhere, so the 1 MB pieces cut through them.
			const text = Array.from({ length: 60_000 }, (_, i) => `Zürich 😀 naïve — “line” ${i}\\ "quoted"\n`).join('');
			const mail = {
				from: 'big@example.org',
				to: 'big@hooks.test',
				subject: 'Large',
				text,
				messageId: '<large@hooks.test>',
				date: new Date('2026-11-22T10:00:00Z'),
			};
			// Composed once (nodemailer's quoted-printable of 2.6 MB takes seconds), the same bytes sent to both.
			const composed = new MailComposer(mail).compile();
			const message = { envelope: composed.getEnvelope(), raw: await composed.build() };
			const payloads: PayloadJson[] = [];
			for (const server of [pair.spooling, pair.inMemory]) {
				const owner = await server.createAccount('large');
				await reserveForwarding(server, owner.key, 'big@hooks.test', { webhook: receiver.url });
				receiver.requests.length = 0;
				await server.send(message);
				const request = await waitFor(() => receiver.requests[0], 'the webhook request');
				expect(Number(request.headers['content-length'])).toBe(Buffer.byteLength(request.body));
				const payload = verifiedPayload(await webhookSecret(server, owner.key), request);
				const served = await server.api<string>(`/api/text/big@hooks.test/${payload._id}`, { key: owner.key });
				expect(payload.text).toBe(served.body);
				payloads.push(payload);
			}
			const [streamed, whole] = payloads;
			expect(streamed.text.trim()).toBe(text.trim());
			expect(Buffer.byteLength(streamed.text)).toBeGreaterThan(2 * 1024 * 1024);
			expect(await queryValue(pair.spooling, "SELECT count(*) FROM content_body_pieces WHERE kind = 'text'")).toBeGreaterThan(2);
			expect(await queryValue(pair.spooling, 'SELECT count(*) FROM content_raw_pieces')).toBeGreaterThan(2);
			// Each server's own: the record, its time, its inbox's alias, and its thread (of an account of that server).
			const sameMessage = (payload: PayloadJson) => omit(payload, '_id', 'received', 'receivedDate', 'encryptedInbox', 'threadId');
			expect(sameMessage(streamed)).toEqual(sameMessage(whole));
		} finally {
			await pair.stop();
			await receiver.close();
		}
		// Two servers, and a message of 2.6 MB stored and delivered by each: on PostgreSQL on a loaded machine, past 30 s.
	}, 90_000);
});

describe('Slack deliveries beside webhooks', () => {
	const setup = webhookSetup('ann');
	const hooks = new WebhookReceiver();
	beforeAll(() => hooks.listen());
	afterAll(() => hooks.close());

	it('goes beside the webhook, each with its own body; the webhook status shows the webhook', async () => {
		const { server, receiver: slack, account: ann } = setup;
		await reserveForwarding(server, ann.key, 'both@example.test', { webhook: `${hooks.url}/both`, webhookSlack: `${slack.url}/both` });
		const [id] = await sendMail(server, { to: 'both@example.test', subject: 'Both' });
		const hook = await firstPost(hooks, '/both');
		const post = await firstPost(slack, '/both');
		expect(jsonBody(hook)).toMatchObject({ _id: id, subject: 'Both', inbox: 'both@example.test' });
		expect(hook.headers['webhook-signature']).toBeDefined();
		expect(jsonBody<{ text: string }>(post)).toEqual({ text: 'New mail for both@example.test: *Both*\n> hello' });
		expect(post.headers['webhook-signature']).toBeUndefined();
		const status = await waitForStatus(server, ann.key, 'both@example.test', id, 'delivered');
		expect(status.url).toBe(`${hooks.url}/both`);
	});

	it('is retried like a webhook, and shows in Recent Activity', async () => {
		const { server, receiver: slack, account: ann } = setup;
		let flakyCalls = 0;
		slack.reply = (request) => (request.url === '/flaky' && flakyCalls++ === 0 ? { status: 503 } : { status: 200 });
		await reserveForwarding(server, ann.key, 'flaky@example.test', { webhookSlack: `${slack.url}/flaky` });
		await sendMail(server, { to: 'flaky@example.test', subject: 'Retry' });
		await waitFor(() => postsTo(slack, '/flaky').some((request) => request.status === 200), 'the retried Slack post');
		expect(postsTo(slack, '/flaky').map((request) => request.status)).toEqual([503, 200]);
		const log = await waitFor(async () => {
			const attempts = await activity(server, ann.key, '?address=flaky%40example.test');
			return attempts.length === 2 ? attempts : undefined;
		}, 'two attempts in Recent Activity');
		expect(log.map((entry) => [entry.status, entry.url])).toEqual([
			['delivered', `${slack.url}/flaky`],
			['retrying', `${slack.url}/flaky`],
		]);
	});
});
