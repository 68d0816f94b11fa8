import { Webhook } from 'standardwebhooks';
import { startTestMailroom, tempDataDir, type TestMailroom } from '../../helpers/mailroom';
import { WebhookReceiver, waitFor } from '../../helpers/webhook-receiver';

const PAYLOAD_FIELDS = [
	'text',
	'headers',
	'subject',
	'messageId',
	'priority',
	'from',
	'to',
	'date',
	'receivedDate',
	'originalInbox',
	'inbox',
	'domain',
	'encryptedInbox',
	'raw',
	'received',
	'_id',
	'ip',
];

/** Fast retries so the schedule runs out within a test. */
const FAST = { webhookRetrySchedule: [0, 200, 200, 200], webhookTimeout: 500 };

const enc = encodeURIComponent;

/** Reserves `email` for the key's account and points its webhook at `url`. */
async function withWebhook(server: TestMailroom, key: string, email: string, url: string): Promise<void> {
	expect((await server.api(`/api/addresses/${enc(email)}`, { method: 'POST', key })).status).toBe(200);
	const put = await server.api(`/api/private-address-forwarding/${enc(email)}`, { method: 'PUT', key, body: { webhook: url } });
	expect(put.status).toBe(200);
	expect(put.body.webhook).toBe(url);
}

async function deliveredMessageId(server: TestMailroom, to: string, subject = 'hi'): Promise<string> {
	const info = await server.send({ from: 'sender@example.org', to, subject, text: 'body' });
	return /stored as (\S+)/.exec(info.response)![1];
}

async function status(server: TestMailroom, key: string, email: string, messageId: string) {
	return server.api(`/api/addresses/${enc(email)}/messages/${messageId}/webhook-status`, { key });
}

async function waitForStatus(server: TestMailroom, key: string, email: string, messageId: string, wanted: string) {
	return waitFor(async () => {
		const response = await status(server, key, email, messageId);
		return response.status === 200 && response.body.status === wanted ? response.body : undefined;
	}, `delivery status ${wanted}`);
}

async function activity(server: TestMailroom, key: string, query = '') {
	const response = await server.api(`/api/webhook-activity${query}`, { key });
	expect(response.status).toBe(200);
	return response.body as {
		status: string;
		statusCode: number | null;
		error: string | null;
		attempt: number;
		deliveryId: string;
		messageId: string;
	}[];
}

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
		const secret = (await server.api('/api/webhook-secret', { key: alice.key })).body.secret;
		expect(secret).toMatch(/^whsec_/);
		const verified = new Webhook(secret).verify(request.body, {
			'webhook-id': request.headers['webhook-id'] as string,
			'webhook-timestamp': request.headers['webhook-timestamp'] as string,
			'webhook-signature': request.headers['webhook-signature'] as string,
		});
		const payload = JSON.parse(request.body);
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
		const first = JSON.parse((await waitFor(() => receiver.requests[0], 'the first webhook')).body);
		const encrypted = `${first.encryptedInbox}@hooks.test`;

		await deliveredMessageId(server, encrypted, 'via the alias');
		const second = JSON.parse((await waitFor(() => receiver.requests[1], 'the second webhook')).body);
		expect(second).toMatchObject({
			subject: 'via the alias',
			inbox: 'secret-box@hooks.test',
			originalInbox: encrypted,
			encryptedInbox: first.encryptedInbox,
		});
		const listing = await server.api(`/api/addresses/${enc('secret-box@hooks.test')}/messages`, { key: alice.key });
		expect(listing.body.map((m: { subject: string }) => m.subject)).toContain('via the alias');
		// An encrypted token of one domain does not route on another.
		await deliveredMessageId(server, `${first.encryptedInbox}@elsewhere.test`);
		const elsewhere = await server.api(`/api/addresses/${enc(`${first.encryptedInbox}@elsewhere.test`)}/messages`);
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
		const ids = receiver.requests.map((request) => JSON.parse(request.body)._id).sort();
		expect(ids).toEqual([unreserved, noHook].sort());
		expect(receiver.requests.every((request) => request.url === '/catch-all')).toBe(true);
		expect((await status(server, bob.key, 'bobs@catch.test', bobs)).status).toBe(404);
	});

	it('retries 500s with the same webhook-id until a 2xx, logging each attempt', async () => {
		receiver.reply = (_request, index) => (index < 2 ? { status: 500, body: 'boom' } : { status: 204 });
		await withWebhook(server, alice.key, 'flaky@hooks.test', receiver.url);
		const messageId = await deliveredMessageId(server, 'flaky@hooks.test');
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

	it('stops at 410, and a redelivery sends it again; only failed deliveries can be redelivered', async () => {
		receiver.reply = () => ({ status: 410 });
		await withWebhook(server, alice.key, 'gone@hooks.test', receiver.url);
		const messageId = await deliveredMessageId(server, 'gone@hooks.test');
		const failed = await waitForStatus(server, alice.key, 'gone@hooks.test', messageId, 'failed');
		expect(failed).toMatchObject({ attempts: 1, lastStatusCode: 410, nextRetry: null });
		await new Promise((resolve) => setTimeout(resolve, 600)); // longer than the whole retry schedule
		expect(receiver.requests).toHaveLength(1);

		receiver.reply = () => ({ status: 200 });
		const redeliver = await server.api(`/api/webhook-deliveries/${failed._id}/redeliver`, { method: 'POST', key: alice.key });
		expect(redeliver.status).toBe(200);
		expect(redeliver.body.status).toBe('pending');
		await waitForStatus(server, alice.key, 'gone@hooks.test', messageId, 'delivered');
		expect(receiver.requests).toHaveLength(2);

		expect((await server.api(`/api/webhook-deliveries/${failed._id}/redeliver`, { method: 'POST', key: alice.key })).status).toBe(409);
		expect((await server.api('/api/webhook-deliveries/nosuchdelivery/redeliver', { method: 'POST', key: alice.key })).status).toBe(404);
		const mallory = server.createAccount('mallory');
		expect((await server.api(`/api/webhook-deliveries/${failed._id}/redeliver`, { method: 'POST', key: mallory.key })).status).toBe(404);
		expect((await status(server, mallory.key, 'gone@hooks.test', messageId)).status).toBe(404);
		expect(await activity(server, mallory.key)).toEqual([]);
	});

	it('counts a slow receiver as a timeout, retries, and fails when the schedule is used up', async () => {
		receiver.reply = () => ({ status: 200, delayMs: 2000 });
		await withWebhook(server, alice.key, 'slow@hooks.test', receiver.url);
		const messageId = await deliveredMessageId(server, 'slow@hooks.test');
		const failed = await waitForStatus(server, alice.key, 'slow@hooks.test', messageId, 'failed');
		expect(failed.attempts).toBe(4);
		expect(failed.lastStatusCode).toBeNull();
		expect(failed.lastError).toMatch(/timed out after 500 ms/);
		const log = await activity(server, alice.key, '?address=slow%40hooks.test');
		expect(log.map((entry) => entry.status)).toEqual(['failed', 'retrying', 'retrying', 'retrying']);
	});

	it('does not follow redirects', async () => {
		const target = new WebhookReceiver();
		await target.listen();
		receiver.reply = () => ({ status: 302, headers: { location: `${target.url}/elsewhere` } });
		await withWebhook(server, alice.key, 'redirect@hooks.test', receiver.url);
		const messageId = await deliveredMessageId(server, 'redirect@hooks.test');
		const failed = await waitForStatus(server, alice.key, 'redirect@hooks.test', messageId, 'failed');
		expect(failed.lastStatusCode).toBe(302);
		expect(failed.lastError).toMatch(/redirects are not followed/);
		expect(target.requests).toHaveLength(0);
		await target.close();
	});

	it('keeps retrying a receiver that is down and delivers once it is up', async () => {
		const later = new WebhookReceiver();
		await later.listen();
		const port = later.port;
		await later.close(); // nothing listens there now: connection refused
		const slowSchedule = await startTestMailroom({ webhookRetrySchedule: [0, 300, 300, 300, 300, 300, 300, 300, 300, 300] });
		try {
			const carol = slowSchedule.createAccount('carol');
			await withWebhook(slowSchedule, carol.key, 'down@hooks.test', `http://127.0.0.1:${port}/`);
			const messageId = await deliveredMessageId(slowSchedule, 'down@hooks.test');
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

describe('webhook retries across restarts and Retry-After', () => {
	let receiver: WebhookReceiver;
	beforeEach(async () => {
		receiver = new WebhookReceiver();
		await receiver.listen();
	});
	afterEach(() => receiver.close());

	it('honours Retry-After on a 429 instead of the (here very long) schedule', async () => {
		const server = await startTestMailroom({ webhookRetrySchedule: [0, 3_600_000] });
		try {
			const dave = server.createAccount('dave');
			receiver.reply = (_request, index) => (index === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 });
			await withWebhook(server, dave.key, 'limited@hooks.test', receiver.url);
			const messageId = await deliveredMessageId(server, 'limited@hooks.test');
			await waitForStatus(server, dave.key, 'limited@hooks.test', messageId, 'delivered');
			expect(receiver.requests.map((request) => request.status)).toEqual([429, 200]);
			const [limited, delivered] = (await activity(server, dave.key)).reverse() as unknown as {
				status: string;
				statusCode: number;
				time: string;
				nextRetry: string;
			}[];
			expect(limited).toMatchObject({ status: 'retrying', statusCode: 429 });
			// The retry was planned exactly Retry-After (1 s) later: no jitter, not the schedule's hour.
			expect(Date.parse(limited.nextRetry) - Date.parse(limited.time)).toBe(1000);
			expect(delivered).toMatchObject({ status: 'delivered', statusCode: 200 });
		} finally {
			await server.stop();
		}
	});

	it('picks pending deliveries up again after a restart, and records exactly one success', async () => {
		const dataDir = tempDataDir();
		const schedule = { webhookRetrySchedule: [0, 1500, 1500] };
		receiver.reply = (_request, index) => ({ status: index === 0 ? 503 : 200 });
		const first = await startTestMailroom({ ...schedule, dataDir });
		const erin = first.createAccount('erin');
		await withWebhook(first, erin.key, 'restart@hooks.test', receiver.url);
		const messageId = await deliveredMessageId(first, 'restart@hooks.test');
		await waitFor(async () => (await activity(first, erin.key)).length === 1, 'the first (failed) attempt');
		await first.stop({ removeData: false });
		expect(receiver.requests).toHaveLength(1);

		const second = await startTestMailroom({ ...schedule, dataDir });
		try {
			const delivered = await waitForStatus(second, erin.key, 'restart@hooks.test', messageId, 'delivered');
			expect(delivered.attempts).toBe(2);
			await new Promise((resolve) => setTimeout(resolve, 1000)); // room for a duplicate, if there were one
			expect(receiver.requests.map((request) => request.status)).toEqual([503, 200]);
			expect(new Set(receiver.requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
			expect((await activity(second, erin.key, '?status=delivered')).length).toBe(1);
		} finally {
			await second.stop();
		}
	});
});

describe('webhook signing secret', () => {
	let server: TestMailroom;
	let receiver: WebhookReceiver;
	beforeAll(async () => {
		server = await startTestMailroom(FAST);
		receiver = new WebhookReceiver();
		await receiver.listen();
	});
	afterAll(async () => {
		await server.stop();
		await receiver.close();
	});

	it('is per account, stable until rotated, and both secrets verify during the overlap', async () => {
		const frank = server.createAccount('frank');
		const grace = server.createAccount('grace');
		const secret = (await server.api('/api/webhook-secret', { key: frank.key })).body.secret;
		expect((await server.api('/api/webhook-secret', { key: frank.key })).body.secret).toBe(secret);
		expect((await server.api('/api/webhook-secret', { key: grace.key })).body.secret).not.toBe(secret);
		expect((await server.api('/api/webhook-secret')).status).toBe(401);

		const rotated = await server.api('/api/webhook-secret/rotate', { method: 'POST', key: frank.key });
		expect(rotated.status).toBe(200);
		expect(rotated.body.secret).toMatch(/^whsec_/);
		expect(rotated.body.secret).not.toBe(secret);
		expect((await server.api('/api/webhook-secret', { key: frank.key })).body.secret).toBe(rotated.body.secret);

		await withWebhook(server, frank.key, 'signed@hooks.test', receiver.url);
		await deliveredMessageId(server, 'signed@hooks.test');
		const request = await waitFor(() => receiver.requests[0], 'the webhook');
		const headers = {
			'webhook-id': request.headers['webhook-id'] as string,
			'webhook-timestamp': request.headers['webhook-timestamp'] as string,
			'webhook-signature': request.headers['webhook-signature'] as string,
		};
		expect(() => new Webhook(rotated.body.secret).verify(request.body, headers)).not.toThrow();
		expect(() => new Webhook(secret).verify(request.body, headers)).not.toThrow();
		const graceSecret = (await server.api('/api/webhook-secret', { key: grace.key })).body.secret;
		expect(() => new Webhook(graceSecret).verify(request.body, headers)).toThrow();
	});
});

describe('webhook isolation between hosts', () => {
	it('keeps at most webhookHostConcurrency requests in flight per host, and a slow host does not hold up another', async () => {
		const server = await startTestMailroom({ webhookHostConcurrency: 2, webhookTimeout: 5000 });
		const slow = new WebhookReceiver();
		const fast = new WebhookReceiver();
		let inFlight = 0;
		let maxInFlight = 0;
		slow.reply = () => {
			maxInFlight = Math.max(maxInFlight, ++inFlight);
			setTimeout(() => inFlight--, 1000).unref();
			return { status: 200, delayMs: 1000 };
		};
		try {
			await slow.listen();
			await fast.listen();
			const owner = server.createAccount('isolation');
			await withWebhook(server, owner.key, 'slow-host@hooks.test', slow.url);
			await withWebhook(server, owner.key, 'fast-host@hooks.test', fast.url);
			for (let i = 0; i < 6; i++) await deliveredMessageId(server, 'slow-host@hooks.test', `slow ${i}`);
			await deliveredMessageId(server, 'fast-host@hooks.test');

			await waitFor(() => fast.requests.length === 1, 'the fast host delivery');
			// Six requests of a second each, two at a time, take three seconds: the fast host did not wait for them.
			expect(slow.requests.length).toBeLessThan(6);
			await waitFor(() => slow.requests.length === 6, 'all slow host deliveries');
			expect(maxInFlight).toBe(2);
		} finally {
			await server.stop();
			await slow.close();
			await fast.close();
		}
	});
});

describe('Recent Activity retention', () => {
	it('prunes attempts and finished deliveries older than webhookActivityDays when the sweep runs', async () => {
		const dataDir = tempDataDir();
		const receiver = new WebhookReceiver();
		await receiver.listen();
		const first = await startTestMailroom({ dataDir, webhookActivityDays: 2 });
		const owner = first.createAccount('retention');
		await withWebhook(first, owner.key, 'old@hooks.test', receiver.url);
		const oldId = await deliveredMessageId(first, 'old@hooks.test', 'old');
		await waitForStatus(first, owner.key, 'old@hooks.test', oldId, 'delivered');
		const newId = await deliveredMessageId(first, 'old@hooks.test', 'new');
		await waitForStatus(first, owner.key, 'old@hooks.test', newId, 'delivered');
		const threeDaysAgo = Date.now() - 3 * 24 * 3600 * 1000;
		first.db.prepare('UPDATE webhook_attempts SET time = ? WHERE message_id = ?').run(threeDaysAgo, oldId);
		first.db.prepare('UPDATE webhook_deliveries SET updated = ? WHERE message_id = ?').run(threeDaysAgo, oldId);
		await first.stop({ removeData: false });

		const second = await startTestMailroom({ dataDir, webhookActivityDays: 2 }); // the sweep also runs at start
		try {
			expect((await activity(second, owner.key)).map((entry) => entry.messageId)).toEqual([newId]);
			expect((await status(second, owner.key, 'old@hooks.test', oldId)).status).toBe(404);
			expect((await status(second, owner.key, 'old@hooks.test', newId)).status).toBe(200);
		} finally {
			await second.stop();
			await receiver.close();
		}
	});
});

describe('the payload of a large message', () => {
	it('is streamed from its stored pieces, and is what the same message kept in memory gets, signed the same way', async () => {
		const receiver = new WebhookReceiver();
		await receiver.listen();
		const spooling = await startTestMailroom({ spoolThreshold: 64 * 1024 });
		const inMemory = await startTestMailroom({ spoolThreshold: 1024 * 1024 * 1024 });
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
			const payloads = [];
			for (const server of [spooling, inMemory]) {
				const owner = server.createAccount('large');
				await withWebhook(server, owner.key, 'big@hooks.test', receiver.url);
				receiver.requests.length = 0;
				await server.send(mail);
				const request = await waitFor(() => receiver.requests[0], 'the webhook request');
				expect(Number(request.headers['content-length'])).toBe(Buffer.byteLength(request.body));
				const secret = (await server.api('/api/webhook-secret', { key: owner.key })).body.secret;
				const payload = new Webhook(secret).verify(request.body, {
					'webhook-id': request.headers['webhook-id'] as string,
					'webhook-timestamp': request.headers['webhook-timestamp'] as string,
					'webhook-signature': request.headers['webhook-signature'] as string,
				}) as Record<string, string>;
				const served = await server.api(`/api/text/big@hooks.test/${payload._id}`, { key: owner.key });
				expect(payload.text).toBe(served.body);
				payloads.push(payload);
			}
			const [streamed, whole] = payloads;
			expect(streamed.text.trim()).toBe(text.trim());
			expect(Buffer.byteLength(streamed.text)).toBeGreaterThan(2 * 1024 * 1024);
			expect(spooling.db.prepare("SELECT count(*) FROM content_body_pieces WHERE kind = 'text'").pluck().get()).toBeGreaterThan(2);
			expect(spooling.db.prepare('SELECT count(*) FROM content_raw_pieces').pluck().get()).toBeGreaterThan(2);
			const sameMessage = ({ _id, received, receivedDate, encryptedInbox, ...rest }: Record<string, string>) => rest; // eslint-disable-line @typescript-eslint/no-unused-vars
			expect(sameMessage(streamed)).toEqual(sameMessage(whole));
		} finally {
			await spooling.stop();
			await inMemory.stop();
			await receiver.close();
		}
	});
});
