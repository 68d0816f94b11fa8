import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pino from 'pino';
import type { Ingest } from 'mailroom-server/dist/ingest/ingest';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { SmtpIngest, type Submission } from 'mailroom-server/dist/smtp/smtp-ingest';
import { Spool } from 'mailroom-server/dist/smtp/spool';
import { Metrics } from 'mailroom-server/dist/metrics/metrics';
import { stillAccepts, subjects } from '../../helpers/inboxes';
import { dataDirs, startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { RawSmtp } from '../../helpers/raw-smtp';
import { spoolEntries } from '../../helpers/spool';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A slow sender: writes one byte every `everyMs` until the connection closes, so the idle timeout (restarted by every byte)
 * never ends it. Resolves with how long it held the connection.
 */
async function trickle(client: RawSmtp, everyMs: number): Promise<number> {
	const started = Date.now();
	let open = true;
	void client.closed.then(() => (open = false));
	while (open) {
		client.write('x');
		await pause(everyMs);
	}
	return Date.now() - started;
}

describe('SMTP time limits (slow senders)', () => {
	const SPOOL_THRESHOLD = 1024;
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom({
			domains: ['slow.test'],
			// Long enough that a whole small message sent after the tricklers (stillAccepts) is never cut on a loaded machine.
			smtpDataTimeout: 3000,
			smtpSessionTimeout: 4000,
			// Far longer than the tests: only the new limits can end their connections.
			smtpSocketTimeout: 60_000,
			smtpMaxClients: 3,
			spoolThreshold: SPOOL_THRESHOLD,
		});
	});
	afterAll(() => server.stop());

	it('cuts DATA that a client trickles past --smtp-data-timeout with 421, storing nothing and removing its spool file', async () => {
		const { client } = await RawSmtp.connect(server.smtpPort);
		await client.envelope('slow@sender.test', ['trickled@slow.test']);
		// Past the spool threshold: received into a file, which the cut must remove.
		client.write(`From: slow@sender.test\r\nSubject: never finished\r\n\r\n${'y'.repeat(2 * SPOOL_THRESHOLD)}`);
		const reply = client.reply();
		const held = await trickle(client, 100);
		expect(await reply).toBe('421 4.4.2 Message not received in full within 3 s, closing connection');
		expect(held).toBeGreaterThanOrEqual(2900);
		expect(held).toBeLessThan(6000);
		expect(await subjects(server, 'trickled@slow.test')).toEqual([]);
		expect(spoolEntries(server)).toEqual([]);
	});

	it('takes a message whose DATA ends in time, however slowly it came', async () => {
		const { client } = await RawSmtp.connect(server.smtpPort);
		await client.envelope('slow@sender.test', ['in-time@slow.test']);
		for (const piece of ['From: slow@sender.test\r\n', 'Subject: in time\r\n\r\n', 'body\r\n']) {
			client.write(piece);
			await pause(600);
		}
		client.write('.\r\n');
		expect(await client.reply()).toMatch(/^250 OK: stored as /);
		// A new DATA gets a whole limit of its own.
		expect(await client.command('MAIL FROM:<slow@sender.test>')).toMatch(/^250 /);
		expect(await client.command('RCPT TO:<in-time@slow.test>')).toMatch(/^250 /);
		expect(await client.command('DATA')).toMatch(/^354 /);
		// With the first DATA's 1.8 s, past the limit: only a limit of its own lets this one through.
		await pause(1500);
		client.write('Subject: second\r\n\r\nbody\r\n.\r\n');
		expect(await client.reply()).toMatch(/^250 OK: stored as /);
		client.close();
		expect(await subjects(server, 'in-time@slow.test')).toEqual(['second', 'in time']);
	});

	it('closes a connection with 421 once it has been open --smtp-session-timeout, however busy it keeps', async () => {
		const { client } = await RawSmtp.connect(server.smtpPort);
		const opened = Date.now();
		expect(await client.command('EHLO client.test')).toMatch(/^250/);
		const replies: string[] = [];
		for (;;) {
			const reply = await client.command('NOOP').catch(() => 'closed');
			if (!reply.startsWith('250')) {
				replies.push(reply);
				break;
			}
			await pause(100);
		}
		expect(replies).toEqual(['421 4.4.2 Connection open for 4 s, the most allowed, closing connection']);
		await client.closed;
		expect(Date.now() - opened).toBeGreaterThanOrEqual(3900);
		expect(Date.now() - opened).toBeLessThan(7000);
	});

	it('frees the slots slow senders took: with every slot held by a trickler, a new client is served once they are cut', async () => {
		const tricklers = await Promise.all(Array.from({ length: 3 }, () => RawSmtp.connect(server.smtpPort)));
		for (const { client } of tricklers) await client.envelope('slow@sender.test', ['flood@slow.test']);
		const held = tricklers.map(({ client }) => trickle(client, 100));
		const refused = await RawSmtp.connect(server.smtpPort);
		expect(refused.greeting).toMatch(/^421 .*Too many connected clients/);
		await Promise.all(held);
		// The server learns of the closes asynchronously: connect until it greets again.
		for (;;) {
			const { client, greeting } = await RawSmtp.connect(server.smtpPort);
			client.close();
			if (greeting.startsWith('220 ')) break;
		}
		await stillAccepts(server, 'after-slow@slow.test');
	});
});

describe('SMTP time limits while a message is stored', () => {
	const newDataDir = dataDirs();

	it('lets a message received whole get its reply before the session limit closes the connection', async () => {
		// An ingest whose store the test lets finish: the session limit is reached while the message is being stored.
		let finishStoring!: () => void;
		const storing = new Promise<void>((resolve) => (finishStoring = resolve));
		let stored = 0;
		const ingest = {
			store: async () => {
				stored++;
				await storing;
				return [{ _id: 'held' } as MessageRecord];
			},
		} as unknown as Ingest;
		const spool = new Spool(newDataDir(), 1024 * 1024);
		spool.sweep();
		const smtp = new SmtpIngest({
			...{ hostname: 'mx.test', maxMessageSize: 1024 * 1024, maxClients: 10, maxClientsPerIp: 10, maxRecipients: 10 },
			...{ socketTimeout: 60_000, dataTimeout: 60_000, sessionTimeout: 1000, bareLf: 'reject' },
			auth: { smtpHost: '127.0.0.1', withoutTls: false, accountForKey: () => Promise.resolve(undefined) },
			submission: {} as Submission,
			acceptsDomain: () => Promise.resolve(true),
			resolveRecipient: (address, domain) => Promise.resolve({ inbox: address, originalInbox: address, domain }),
			...{ ingest, spool, log: pino({ level: 'silent' }), metrics: new Metrics().smtp },
		});
		const port = await smtp.listen(0, '127.0.0.1');
		try {
			const { client } = await RawSmtp.connect(port);
			await client.envelope('a@sender.test', ['held@any.test']);
			client.write('Subject: held\r\n\r\nbody\r\n.\r\n');
			while (stored === 0) await pause(10);
			await pause(1500);
			finishStoring();
			expect(await client.reply()).toBe('250 OK: stored as held');
			expect(await client.reply()).toBe('421 4.4.2 Connection open for 1 s, the most allowed, closing connection');
			await client.closed;
		} finally {
			await smtp.close(1000);
		}
	});
});
