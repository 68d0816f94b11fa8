import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { moved, scrape, type Scrape } from '../../helpers/metrics';
import { senderAccount } from '../../helpers/outgoing';
import { RawSmtp } from '../../helpers/raw-smtp';
import { waitFor } from '../../helpers/webhook-receiver';

/** Real SMTP sessions (nodemailer, raw commands) against a server, and what its metrics listener says of them after. */

let server: TestMailroom;

beforeAll(async () => {
	server = await startTestMailroom({ metricsPort: 0, domains: ['metrics.test'], maxMessageSize: 4096 });
});
afterAll(() => server.stop());

/** What `act` moved: the scrapes before and after it. */
async function around(act: () => Promise<unknown>): Promise<(name: string, labels?: Record<string, string>) => number> {
	const before = await scrape(server.metricsUrl);
	await act();
	const after = await scrape(server.metricsUrl);
	return (name, labels) => moved(before, after, name, labels);
}

const refusals = (reason: string) => ['mailroom_smtp_refusals_total', { reason }] as const;
const accepted = (kind: string) => ['mailroom_smtp_messages_accepted_total', { kind }] as const;
const authAttempts = (outcome: string) => ['mailroom_smtp_auth_attempts_total', { outcome }] as const;

/** A nodemailer transport that logs in, as apps configure it. */
const withLogin = (user: string, pass: string) =>
	nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, secure: false, ignoreTLS: true, auth: { user, pass } });

describe('SMTP metrics', () => {
	it('count a session and its accepted message, and time it from the end of DATA to durable', async () => {
		const change = await around(() => server.send({ from: 'a@sender.test', to: 'inbox@metrics.test', subject: 'counted', text: 'hi' }));
		expect(change('mailroom_smtp_sessions_opened_total')).toBe(1);
		expect(change(...accepted('received'))).toBe(1);
		expect(change(...accepted('submitted'))).toBe(0);
		expect(change('mailroom_smtp_data_to_durable_seconds_count')).toBe(1);
		expect(change('mailroom_smtp_data_to_durable_seconds_sum')).toBeGreaterThan(0);
		// The ingest thread's commit of it, reported with its reply.
		expect(change('mailroom_ingest_commit_batch_messages_sum')).toBe(1);
		expect(change('mailroom_ingest_commit_duration_seconds_count')).toBe(1);
		expect(change('mailroom_ingest_sync_duration_seconds_count')).toBe(1);
	});

	it('count every message of group commits shared by messages arriving together', async () => {
		const change = await around(() =>
			Promise.all(Array.from({ length: 5 }, (_, i) => server.send({ from: 'a@sender.test', to: `batch${i}@metrics.test`, text: 'hi' }))),
		);
		expect(change(...accepted('received'))).toBe(5);
		expect(change('mailroom_ingest_commit_batch_messages_sum')).toBe(5);
		// One observation per commit, however many messages shared it.
		const commits = change('mailroom_ingest_commit_batch_messages_count');
		expect(commits).toBeGreaterThanOrEqual(1);
		expect(commits).toBeLessThanOrEqual(5);
		expect(change('mailroom_ingest_commit_duration_seconds_count')).toBe(commits);
		expect(change('mailroom_ingest_sync_duration_seconds_count')).toBe(commits);
	});

	it('count a recipient of a domain not accepted here as a refusal for its domain', async () => {
		const change = await around(() =>
			expect(server.send({ from: 'a@sender.test', to: 'x@elsewhere.test', text: 'hi' })).rejects.toMatchObject({ responseCode: 550 }),
		);
		expect(change(...refusals('domain'))).toBe(1);
		expect(change(...accepted('received'))).toBe(0);
	});

	it('count a message over --max-message-size as a refusal for its size', async () => {
		const change = await around(() =>
			expect(server.send({ from: 'a@sender.test', to: 'big@metrics.test', text: 'x'.repeat(8192) })).rejects.toMatchObject({
				responseCode: 552,
			}),
		);
		expect(change(...refusals('size'))).toBe(1);
		expect(change(...accepted('received'))).toBe(0);
	});

	it('count a message with a bare LF, and a recipient address it cannot take, each under its reason', async () => {
		const change = await around(async () => {
			const { client } = await RawSmtp.connect(server.smtpPort);
			expect(await client.command('EHLO client.test')).toMatch(/^250/);
			expect(await client.command('MAIL FROM:<a@sender.test>')).toMatch(/^250/);
			expect(await client.command(`RCPT TO:<${'x'.repeat(65)}@metrics.test>`)).toMatch(/^553 /);
			expect(await client.command('RCPT TO:<lf@metrics.test>')).toMatch(/^250/);
			expect(await client.command('DATA')).toMatch(/^354/);
			client.write('Subject: bare\nbody\r\n.\r\n');
			expect(await client.reply()).toMatch(/^550 5\.5\.2 /);
			client.close();
		});
		expect(change(...refusals('address'))).toBe(1);
		expect(change(...refusals('bare_lf'))).toBe(1);
		expect(change(...accepted('received'))).toBe(0);
	});

	it('count AUTH by outcome: any password, a password taken for a key that is none, an API key; and a submitted message', async () => {
		const alice = await senderAccount(server, 'alice', 'alice@metrics.test', 5);
		const change = await around(async () => {
			await withLogin('app', 'any password').sendMail({ from: 'app@sender.test', to: 'any@metrics.test', text: 'hi' });
			await expect(withLogin('app', 'mr_no-such-key').sendMail({ from: 'app@sender.test', to: 'any@metrics.test' })).rejects.toMatchObject({
				responseCode: 535,
			});
			await withLogin('app', alice.key).sendMail({ from: 'alice@metrics.test', to: 'bob@metrics.test', text: 'sent' });
		});
		expect(change(...authAttempts('any_password'))).toBe(1);
		expect(change(...authAttempts('invalid_key'))).toBe(1);
		expect(change(...authAttempts('api_key'))).toBe(1);
		expect(change(...accepted('received'))).toBe(1);
		expect(change(...accepted('submitted'))).toBe(1);
	});

	it('count a submission its account may not send from as a refusal of the sender', async () => {
		const bob = await server.createAccount('bob', 5);
		const change = await around(() =>
			expect(withLogin('app', bob.key).sendMail({ from: 'alice@metrics.test', to: 'x@metrics.test', text: 'no' })).rejects.toMatchObject({
				responseCode: 553,
			}),
		);
		expect(change(...refusals('sender'))).toBe(1);
		expect(change(...accepted('submitted'))).toBe(0);
	});

	it('show the sessions open now', async () => {
		const open = async () => (await scrape(server.metricsUrl)).value('mailroom_smtp_sessions_open');
		await waitFor(async () => (await open()) === 0, 'no session open');
		const { client } = await RawSmtp.connect(server.smtpPort);
		await waitFor(async () => (await open()) === 1, 'the session counted as open');
		client.close();
		await waitFor(async () => (await open()) === 0, 'the session counted as closed');
	});

	it('start every series at 0, so a rate sees the first event', async () => {
		const fresh = await startTestMailroom({ metricsPort: 0 });
		let scraped: Scrape;
		try {
			scraped = await scrape(fresh.metricsUrl);
		} finally {
			await fresh.stop();
		}
		for (const reason of ['connections', 'domain', 'size', 'bare_lf', 'timeout', 'unavailable'])
			expect(scraped.value(...refusals(reason))).toBe(0);
		for (const outcome of ['any_password', 'api_key', 'invalid_key', 'blocked']) expect(scraped.value(...authAttempts(outcome))).toBe(0);
		expect(scraped.value(...accepted('received'))).toBe(0);
	});
});
