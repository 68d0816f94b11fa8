import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type Mail from 'nodemailer/lib/mailer';
import type { ErrorBody } from 'mailroom-server/dist/schemas/error';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { MAX_WAITERS_PER_CALLER } from 'mailroom-server/dist/waiting/mail-waiters';
import { startTestMailroom, type ApiResponse, type TestMailroom } from '../../../helpers/mailroom';
import { enc, expectError, sendMail } from '../../../helpers/messages';
import { INBOXES, seedInboxes, type InboxKind } from '../../../helpers/inboxes';
import { waitFor } from '../../../helpers/webhook-receiver';

type Answer = ApiResponse<MessageRecord | ErrorBody>;

const waitPath = (inbox: string, query = '') => `/api/addresses/${enc(inbox)}/wait-for-message${query && `?${query}`}`;
const PAST = '2000-01-01T00:00:00Z';

/**
 * Asks to wait for mail; resolves once the server holds the request's waiter, so mail sent afterwards must wake it.
 * The answer comes wrapped: an async function would wait for the promise it returns.
 */
async function startWaiting(server: TestMailroom, inbox: string, query = '', key?: string): Promise<{ answer: Promise<Answer> }> {
	const before = server.waiters.size;
	const answer = server.api<MessageRecord | ErrorBody>(waitPath(inbox, query), { key });
	await waitFor(() => server.waiters.size > before, 'the request to wait');
	return { answer };
}

/** The record GET .../messages/:id gives for a message: what a wait must answer with. */
async function recordOf(server: TestMailroom, inbox: string, id: string, key?: string): Promise<MessageRecord> {
	return (await server.api<MessageRecord>(`/api/addresses/${enc(inbox)}/messages/${id}`, { key })).body;
}

async function expectAnsweredWith(server: TestMailroom, answer: ApiResponse, inbox: string, id: string, key?: string): Promise<void> {
	expect(answer.status).toBe(200);
	expect(answer.body).toEqual(await recordOf(server, inbox, id, key));
}

describe('GET /api/addresses/:email/wait-for-message', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom({ rateLimitIp: 100_000, rateLimitKey: 100_000 });
	});
	afterAll(() => server.stop());

	it('answers with the message once it is stored, as GET .../messages/:id shows it', async () => {
		const inbox = 'arrives@example.test';
		const { answer } = await startWaiting(server, inbox);
		const [id] = await sendMail(server, { to: inbox, subject: 'the one' });
		await expectAnsweredWith(server, await answer, inbox, id);
		expect(server.waiters.size).toBe(0);
	});

	it('answers 408 naming the address and the filters once the timeout has passed, and not before', async () => {
		const started = performance.now();
		const answer = await server.api<ErrorBody>(waitPath('quiet@example.test', 'timeout=300&from=x&subject=y%20z'));
		expect(performance.now() - started).toBeGreaterThanOrEqual(300);
		expectError(answer, 408);
		expect(answer.body).toEqual({
			error: 'Request Timeout',
			message: 'No message from "x", subject "y z" arrived at quiet@example.test within 300 ms',
		});
		const since = await server.api<ErrorBody>(waitPath('quiet@example.test', `timeout=0&since=${PAST}`));
		expect(since.body.message).toBe(`No message arrived at quiet@example.test within 0 ms (looking at mail received since ${PAST})`);
		expect(server.waiters.size).toBe(0);
	});

	it('by default ignores mail received before the request, and answers with the next', async () => {
		const inbox = 'default-since@example.test';
		await sendMail(server, { to: inbox, subject: 'old' });
		const { answer } = await startWaiting(server, inbox);
		const [id] = await sendMail(server, { to: inbox, subject: 'new' });
		await expectAnsweredWith(server, await answer, inbox, id);
	});

	it('with since in the past, answers at once with the oldest message received at or after it', async () => {
		const inbox = 'since@example.test';
		const [first] = await sendMail(server, { to: inbox, subject: 'first' });
		const [second] = await sendMail(server, { to: inbox, subject: 'second' });
		const firstReceived = (await recordOf(server, inbox, first)).received;
		await expectAnsweredWith(server, await server.api(waitPath(inbox, `since=${PAST}&timeout=0`)), inbox, first);
		await expectAnsweredWith(server, await server.api(waitPath(inbox, `since=${firstReceived}&timeout=0`)), inbox, first);
		const justAfter = new Date(Date.parse(firstReceived) + 1).toISOString();
		await expectAnsweredWith(server, await server.api(waitPath(inbox, `since=${justAfter}&timeout=0`)), inbox, second);
		// Later than all of it: only new mail answers.
		const afterBoth = new Date(Date.parse((await recordOf(server, inbox, second)).received) + 1).toISOString();
		const { answer } = await startWaiting(server, inbox, `since=${afterBoth}`);
		const [third] = await sendMail(server, { to: inbox, subject: 'third' });
		await expectAnsweredWith(server, await answer, inbox, third);
	});

	// Each filter, met by one message and missed by another: stored before the request (looked up at once) and sent
	// while it waits (woken), with the same result.
	const FILTERS: [name: string, query: string, matching: Mail.Options, missing: Mail.Options][] = [
		[
			'from, by display name',
			'from=billing%20TEAM',
			{ from: '"Billing Team" <noreply@shop.test>' },
			{ from: '"Sales" <billing@shop.test>' },
		],
		['from, by address', 'from=INVOICES%40Shop', { from: 'invoices@shop.test' }, { from: 'invoices@store.test' }],
		['subject', 'subject=order%2042', { subject: 'Your ORDER 42 has shipped' }, { subject: 'Your order 43 has shipped' }],
		['subject, beyond ASCII', 'subject=%C3%BCberweisung', { subject: 'ÜBERWEISUNG eingegangen' }, { subject: 'Ueberweisung' }],
		['text', 'text=Tracking%20code%3A%20xyz', { text: 'Hello,\nthe TRACKING CODE: XYZ-1 is yours.' }, { text: 'tracking code follows' }],
		[
			'all three',
			'from=shop.test&subject=receipt&text=total',
			{ from: 'a@shop.test', subject: 'Receipt', text: 'Total: 3 EUR' },
			{ from: 'a@shop.test', subject: 'Receipt', text: 'Sum: 3 EUR' },
		],
	];

	it.each(FILTERS)('filters by %s, case-insensitively, alike for stored and new mail', async (_name, query, matching, missing) => {
		const inbox = `filter-${Math.random().toString(36).slice(2)}@example.test`;
		await sendMail(server, { to: inbox, ...missing });
		const [stored] = await sendMail(server, { to: inbox, ...matching });
		await sendMail(server, { to: inbox, ...missing });
		await expectAnsweredWith(server, await server.api(waitPath(inbox, `${query}&since=${PAST}&timeout=0`)), inbox, stored);

		const { answer } = await startWaiting(server, inbox, query);
		await sendMail(server, { to: inbox, ...missing });
		expect(server.waiters.size).toBe(1); // still waiting: woken in order, it would have been answered with the miss
		const [arrived] = await sendMail(server, { to: inbox, ...matching });
		await expectAnsweredWith(server, await answer, inbox, arrived);
	});

	it.each([
		['timeout=300001', /^timeout must be at most 300000$/],
		['timeout=-1', /timeout/],
		['timeout=1.5', /timeout/],
		['since=yesterday', /since/],
		['since=2026-02-30T00:00:00Z', /since/],
		['since=2016-12-31T23:59:60Z', /since "2016-12-31T23:59:60Z" is not a time/],
		['subjct=typo', /^subjct is not a query parameter of this request/],
		['from=', /from/],
	])('refuses %s with a 400 saying what is wrong', async (query, message) => {
		expectError(await server.api(waitPath('bad-input@example.test', query)), 400, message);
	});

	it('is open to the same callers as the inbox listing: a private inbox to its owner only', async () => {
		const { owner, other, ids } = await seedInboxes(server);
		for (const kind of Object.keys(INBOXES) as InboxKind[]) {
			const inbox = INBOXES[kind];
			for (const key of [undefined, other.key, owner.key]) {
				const listing = await server.api(`/api/addresses/${enc(inbox)}/messages`, { key });
				const answer = await server.api(waitPath(inbox, `since=${PAST}&timeout=0`), { key });
				expect({ kind, key, status: answer.status }).toEqual({ kind, key, status: listing.status });
				if (listing.status === 200) await expectAnsweredWith(server, answer, inbox, ids[kind], key);
				else expectError(answer, listing.status);
			}
		}
	});

	it('frees the waiter of a client that goes away at once', async () => {
		const gone = new AbortController();
		const request = fetch(`${server.httpUrl}${waitPath('goes-away@example.test', 'timeout=300000')}`, { signal: gone.signal });
		await waitFor(() => server.waiters.size === 1, 'the request to wait');
		gone.abort();
		await expect(request).rejects.toThrow();
		await waitFor(() => server.waiters.size === 0, 'the waiter of the closed connection to go');
		// The server still answers waits on that address.
		const { answer } = await startWaiting(server, 'goes-away@example.test');
		const [id] = await sendMail(server, { to: 'goes-away@example.test' });
		await expectAnsweredWith(server, await answer, 'goes-away@example.test', id);
	});

	it('answers every waiter of an address with the message that matches it', async () => {
		const inbox = 'many@example.test';
		const all = await Promise.all(Array.from({ length: 20 }, () => startWaiting(server, inbox)));
		const { answer: red } = await startWaiting(server, inbox, 'subject=red');
		const [id] = await sendMail(server, { to: inbox, subject: 'blue' });
		for (const answer of await Promise.all(all.map((waiting) => waiting.answer))) await expectAnsweredWith(server, answer, inbox, id);
		expect(server.waiters.size).toBe(1);
		const [redId] = await sendMail(server, { to: inbox, subject: 'red' });
		await expectAnsweredWith(server, await red, inbox, redId);
	});

	it(`lets one caller have at most ${MAX_WAITERS_PER_CALLER} waits at once (429), others still wait`, async () => {
		const leave = new AbortController();
		const waits = Array.from({ length: MAX_WAITERS_PER_CALLER }, (_, i) =>
			fetch(`${server.httpUrl}${waitPath(`crowd${i % 10}@example.test`)}`, { signal: leave.signal }).catch(() => 'left'),
		);
		await waitFor(() => server.waiters.size === MAX_WAITERS_PER_CALLER, 'every request to wait');
		expectError(await server.api(waitPath('crowd0@example.test')), 429, new RegExp(`${MAX_WAITERS_PER_CALLER} requests waiting`));
		const { answer: withKey } = await startWaiting(server, 'crowd0@example.test', '', server.adminKey);
		const [id] = await sendMail(server, { to: 'crowd0@example.test' });
		await expectAnsweredWith(server, await withKey, 'crowd0@example.test', id);
		leave.abort();
		await Promise.all(waits);
		await waitFor(() => server.waiters.size === 0, 'the waiters to go');
	});

	it('no HTTP server timeout cuts a wait of up to 5 minutes', () => {
		const http = server.http.server;
		expect({ requestTimeout: http.requestTimeout, idleTimeout: http.timeout }).toEqual({ requestTimeout: 0, idleTimeout: 0 });
	});
});

describe('wait-for-message at shutdown', () => {
	it('ends waits with a 503, so the server stops without waiting for them', async () => {
		const server = await startTestMailroom();
		const { answer } = await startWaiting(server, 'shutdown@example.test', 'timeout=300000');
		await server.stop();
		expectError(await answer, 503, /shutting down/);
	});
});
