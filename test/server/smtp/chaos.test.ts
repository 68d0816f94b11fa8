import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChaosView } from 'mailroom-server/dist/schemas/chaos';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { RawSmtp } from '../../helpers/raw-smtp';
import { swaks } from '../../helpers/smtp-clients';
import { senderAccount } from '../../helpers/outgoing';
import { inboxMessages } from '../../helpers/inboxes';
import { moved, scrape } from '../../helpers/metrics';

const plain = (user: string, password: string) => Buffer.from(`\0${user}\0${password}`).toString('base64');
const chaosReply = (code: number, command: string) =>
	`${code} ${Math.floor(code / 100)}.0.0 Mailroom chaos: ${command} answered ${code} on purpose, as this account's chaos settings say (PUT /api/me/chaos)`;

/** Failures and delays on purpose, per account (GET and PUT /api/me/chaos), through real SMTP clients. */
describe('chaos settings', () => {
	let server: TestMailroom;
	/** Team A tests its app against a failing server: its reserved address and its domain. */
	let teamA: { id: string; key: string };
	/** Team B shares the server and must not notice. */
	let teamB: { id: string; key: string };

	const putChaos = (key: string, body: unknown) =>
		server.api<ChaosView & { field?: string; message?: string }>('/api/me/chaos', { method: 'PUT', key, body });
	/** Team A's settings, replaced whole: the stages not named are off. */
	const chaosOfA = async (stages: Record<string, unknown>) => {
		const off = { auth: null, mailFrom: null, rcptTo: null, data: null };
		expect((await putChaos(teamA.key, { enabled: true, ...off, ...stages })).status).toBe(200);
	};
	/** A raw session after EHLO and MAIL FROM, from a sender of no account. */
	const transaction = async () => {
		const { client } = await RawSmtp.connect(server.smtpPort);
		expect(await client.command('EHLO client.test')).toMatch(/^250/);
		expect(await client.command('MAIL FROM:<app@elsewhere.test>')).toMatch(/^250/);
		return client;
	};
	/** The subjects in a private inbox, read with its owner's key. */
	const subjects = async (inbox: string, owner: { key: string }) => (await inboxMessages(server, inbox, owner.key)).map((m) => m.subject);
	/** DATA of a small message and the time (ms) its final reply took. */
	const sendData = async (client: RawSmtp, subject: string) => {
		expect(await client.command('DATA')).toMatch(/^354/);
		const started = performance.now();
		const reply = await client.command(`Subject: ${subject}\r\n\r\nbody\r\n.`);
		return { reply, ms: performance.now() - started };
	};

	beforeAll(async () => {
		server = await startTestMailroom({ domains: ['local.test'], metricsPort: 0 });
		teamA = await senderAccount(server, 'team-a', 'a@local.test', 10);
		expect((await server.api('/api/domains/a-team.test', { method: 'POST', key: teamA.key })).status).toBe(200);
		teamB = await senderAccount(server, 'team-b', 'b@local.test', 10);
	});
	afterAll(() => server.stop());

	describe('the API', () => {
		it('is off by default, and changes only the fields given', async () => {
			expect((await server.api('/api/me/chaos', { key: teamB.key })).body).toEqual({
				...{ enabled: false, auth: null, mailFrom: null, rcptTo: null, data: null, updated: null },
			});
			const first = await putChaos(teamB.key, { rcptTo: { code: 451, probability: 0.25 } });
			expect(first.status).toBe(200);
			expect(first.body).toMatchObject({ enabled: false, rcptTo: { code: 451, probability: 0.25, delayMs: 0 }, data: null });
			const second = await putChaos(teamB.key, { data: { delayMs: 1500 }, auth: {} });
			expect(second.body).toMatchObject({
				...{ enabled: false, rcptTo: { code: 451, probability: 0.25, delayMs: 0 } },
				...{ data: { code: null, probability: 1, delayMs: 1500 }, auth: null },
			});
			expect(new Date(second.body.updated!).getTime()).toBeGreaterThan(0);
			expect((await server.api('/api/me/chaos', { key: teamB.key })).body).toEqual(second.body);
			expect((await putChaos(teamB.key, { rcptTo: null, data: null })).body).toMatchObject({ rcptTo: null, data: null });
		});

		it('refuses unknown fields and values out of range, naming the field', async () => {
			const cases: [unknown, string, RegExp][] = [
				[{ chaos: true }, 'chaos', /not a field/i],
				[{ rcptTo: { code: 250 } }, 'rcptTo.code', /at least 400/],
				[{ data: { probability: 1.5 } }, 'data.probability', /1/],
				[{ mailFrom: { delayMs: 120_000 } }, 'mailFrom.delayMs', /30000/],
				[{ auth: { code: 535, when: 'always' } }, 'auth.when', /not a field/i],
				[{ enabled: 'yes' }, 'enabled', /true or false/],
			];
			for (const [body, field, message] of cases) {
				const answer = await putChaos(teamB.key, body);
				expect([answer.status, answer.body.field]).toEqual([400, field]);
				expect(answer.body.message).toMatch(message);
			}
			expect((await server.api('/api/me/chaos', { method: 'PUT', body: { enabled: true } })).status).toBe(401);
			expect((await server.api('/api/me/chaos')).status).toBe(401);
		});
	});

	it("answers RCPT TO of the account's addresses with the chosen code, and no one else's", async () => {
		await chaosOfA({ rcptTo: { code: 550, probability: 1 } });
		const before = await scrape(server.metricsUrl);
		const client = await transaction();
		expect(await client.command('RCPT TO:<a@local.test>')).toBe(chaosReply(550, 'RCPT TO'));
		expect(await client.command('RCPT TO:<anyone@a-team.test>')).toBe(chaosReply(550, 'RCPT TO'));
		expect(await client.command('RCPT TO:<b@local.test>')).toMatch(/^250 /);
		expect(await client.command('RCPT TO:<public@local.test>')).toMatch(/^250 /);
		expect((await sendData(client, 'past the chaos')).reply).toMatch(/^250 OK: stored as \S+ \S+$/);
		client.close();
		expect(await subjects('b@local.test', teamB)).toContain('past the chaos');
		const after = await scrape(server.metricsUrl);
		expect(moved(before, after, 'mailroom_smtp_refusals_total', { reason: 'chaos' })).toBe(2);

		const run = await swaks(server.smtpPort, ['--to', 'a@local.test', '--from', 'app@elsewhere.test']);
		expect(run.output).toContain(`<** ${chaosReply(550, 'RCPT TO')}`);
		expect(run.code).not.toBe(0);
		const transport = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, secure: false, ignoreTLS: true });
		await expect(transport.sendMail({ from: 'app@elsewhere.test', to: 'a@local.test', subject: 'x', text: 'x' })).rejects.toMatchObject({
			responseCode: 550,
			rejected: ['a@local.test'],
		});
		transport.close();
	});

	it('never answers the code with probability 0, nor while chaos is off', async () => {
		await chaosOfA({ rcptTo: { code: 451, probability: 0 } });
		const client = await transaction();
		for (let i = 0; i < 20; i++) expect(await client.command(`RCPT TO:<a+${i}@local.test>`)).toMatch(/^250 /);
		client.close();
		await chaosOfA({ rcptTo: { code: 451, probability: 1 } });
		expect((await putChaos(teamA.key, { enabled: false })).body).toMatchObject({ enabled: false, rcptTo: { code: 451 } });
		const off = await transaction();
		expect(await off.command('RCPT TO:<a@local.test>')).toMatch(/^250 /);
		off.close();
	});

	it('answers the end of DATA with the chosen code: the message is not stored, and mail without the account is', async () => {
		await chaosOfA({ data: { code: 552, probability: 1 } });
		const run = await swaks(server.smtpPort, ['--to', 'a@local.test', '--from', 'app@elsewhere.test', '--header', 'Subject: refused']);
		expect(run.output).toContain(`<** ${chaosReply(552, 'DATA')}`);
		const other = await transaction();
		expect(await other.command('RCPT TO:<b@local.test>')).toMatch(/^250 /);
		expect((await sendData(other, 'kept')).reply).toMatch(/^250 OK: stored as /);
		other.close();
		expect(await subjects('a@local.test', teamA)).not.toContain('refused');
		expect(await subjects('b@local.test', teamB)).toContain('kept');
	});

	it("delays the answer by the chosen time, for the account's mail only", async () => {
		await chaosOfA({ data: { delayMs: 600 } });
		const slow = await transaction();
		expect(await slow.command('RCPT TO:<a@local.test>')).toMatch(/^250 /);
		const delayed = await sendData(slow, 'slow');
		expect(delayed.reply).toMatch(/^250 OK: stored as /);
		expect(delayed.ms).toBeGreaterThanOrEqual(590);
		slow.close();
		const fast = await transaction();
		expect(await fast.command('RCPT TO:<b@local.test>')).toMatch(/^250 /);
		expect((await sendData(fast, 'fast')).ms).toBeLessThan(590);
		fast.close();
	});

	it('acts at AUTH and MAIL FROM of sessions with its API key only', async () => {
		await chaosOfA({ auth: { code: 454, probability: 1 } });
		const refused = await swaks(server.smtpPort, [
			...['--to', 'b@local.test', '--from', 'a@local.test', '--auth', 'PLAIN', '--auth-user', 'app', '--auth-password', teamA.key],
		]);
		expect(refused.output).toContain(`<** ${chaosReply(454, 'AUTH')}`);
		// Team B's key, and any password that is no key (the account is not known), log in as ever.
		for (const password of [teamB.key, 'whatever']) {
			const { client } = await RawSmtp.connect(server.smtpPort);
			expect(await client.command('EHLO client.test')).toMatch(/^250/);
			expect(await client.command(`AUTH PLAIN ${plain('app', password)}`)).toBe('235 Authentication successful');
			client.close();
		}

		await chaosOfA({ mailFrom: { code: 451, probability: 1 } });
		const transport = nodemailer.createTransport({
			...{ host: '127.0.0.1', port: server.smtpPort, secure: false, ignoreTLS: true },
			auth: { user: 'app', pass: teamA.key },
		});
		await expect(transport.sendMail({ from: 'a@local.test', to: 'b@local.test', subject: 'x', text: 'x' })).rejects.toMatchObject({
			responseCode: 451,
			response: chaosReply(451, 'MAIL FROM'),
		});
		transport.close();
		// Without its key, MAIL FROM has no account yet: answered as usual.
		const anonymous = await transaction();
		anonymous.close();
	});
});
