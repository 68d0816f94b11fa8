import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import { SETTINGS } from 'mailroom-server/dist/config/settings';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { WebhookAttempt, WebhookDelivery } from 'mailroom-server/dist/schemas/webhook';
import { RawSmtp } from '../helpers/raw-smtp';
import { startTestRelay, type TestRelay } from '../helpers/smtp-relay';
import { selfSignedCertificate } from '../helpers/tls';
import { WebhookReceiver, waitFor } from '../helpers/webhook-receiver';

const CLI = require.resolve('mailroom-server/dist/cli.js');
const CRLF = '\r\n';

function freePort(): Promise<number> {
	return new Promise((resolve) => {
		const probe = createServer().listen(0, '127.0.0.1', () => {
			const { port } = probe.address() as AddressInfo;
			probe.close(() => resolve(port));
		});
	});
}

/** Whether something accepts connections on host:port now. */
function accepts(host: string, port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = connect(port, host);
		socket.on('connect', () => (socket.destroy(), resolve(true)));
		socket.on('error', () => resolve(false));
	});
}

const newDataDir = () => mkdtempSync(join(tmpdir(), 'mailroom-flags-'));

/** What a server was started with, and where it listens. */
interface Where {
	dataDir: string;
	smtpHost: string;
	smtpPort: number;
	httpHost: string;
	httpPort: number;
}

/** `mailroom serve` as its own process. */
class Served {
	private output = '';
	readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

	private constructor(
		readonly child: ChildProcess,
		readonly where: Where,
	) {
		child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
		child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
		this.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
	}

	static async start(args: string[], env: Record<string, string>, where: Where): Promise<Served> {
		const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('MAILROOM_')));
		const served = new Served(spawn(process.execPath, [CLI, 'serve', ...args], { env: { ...clean, ...env } }), where);
		let exitedEarly = false;
		void served.exited.then(() => (exitedEarly = true));
		await waitFor(async () => {
			if (exitedEarly) throw new Error(`mailroom serve exited before it listened:\n${served.output}`);
			return (await accepts(where.smtpHost, where.smtpPort)) && (await accepts(where.httpHost, where.httpPort));
		}, 'mailroom serve to listen');
		return served;
	}

	get printed(): string {
		return this.output;
	}

	/** The admin key printed at the first start of a data folder. */
	key(): Promise<string> {
		return waitFor(() => /\bmr_[A-Za-z0-9_-]{20,}/.exec(this.output)?.[0], 'the admin key');
	}

	async api<Body>(path: string, options: { key?: string; method?: string; body?: unknown } = {}): Promise<{ status: number; body: Body }> {
		const headers: Record<string, string> = {};
		if (options.key) headers['Service-Key'] = options.key;
		if (options.body !== undefined) headers['Content-Type'] = 'application/json';
		const response = await fetch(`http://${this.where.httpHost}:${this.where.httpPort}${path}`, {
			method: options.method ?? 'GET',
			headers,
			body: options.body === undefined ? undefined : JSON.stringify(options.body),
		});
		const text = await response.text();
		return { status: response.status, body: (response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as Body };
	}

	/** Sends one message over SMTP; resolves with the server's reply to DATA. */
	async send(mail: Mail.Options): Promise<string> {
		const transport = nodemailer.createTransport({ host: this.where.smtpHost, port: this.where.smtpPort, ignoreTLS: true });
		try {
			return ((await transport.sendMail({ from: 'a@sender.test', subject: 'hello', text: 'hello', ...mail })) as { response: string })
				.response;
		} finally {
			transport.close();
		}
	}

	/** A raw SMTP session (for the replies nodemailer does not show). */
	smtp(): Promise<{ client: RawSmtp; greeting: string }> {
		return RawSmtp.connect(this.where.smtpPort);
	}

	inbox(address: string, key?: string): Promise<MessageRecord[]> {
		return this.api<MessageRecord[]>(`/api/addresses/${encodeURIComponent(address)}/messages`, { key }).then(({ body }) => body);
	}

	/** Reads the server's database beside it, as an operator would. */
	query<Row>(sql: string, ...params: unknown[]): Row[] {
		const db = new Database(join(this.where.dataDir, 'mailroom.sqlite'), { readonly: true });
		try {
			return db.prepare(sql).all(...params) as Row[];
		} finally {
			db.close();
		}
	}

	/** The names of the process's threads (Node's worker threads are "WorkerThread"). */
	threads(): string[] {
		const tasks = `/proc/${this.child.pid}/task`;
		return readdirSync(tasks).map((task) => readFileSync(join(tasks, task, 'comm'), 'utf8').trim());
	}

	/** How many files the process has open on the database's write-ahead log. */
	walHandles(): number {
		const fds = `/proc/${this.child.pid}/fd`;
		return readdirSync(fds).filter((fd) => {
			try {
				return readlinkSync(join(fds, fd)).endsWith('mailroom.sqlite-wal');
			} catch {
				return false; // closed meanwhile
			}
		}).length;
	}

	async stop(): Promise<void> {
		if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
		await this.exited;
	}
}

/** Runs `mailroom <args>` (an admin command) on a data folder. */
function cli(...args: string[]): string {
	return execFileSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
}

/** A data folder whose server has run once (its admin key is returned), ready to be changed before the next start. */
async function usedDataDir(use: (server: Served, key: string) => Promise<void>): Promise<{ dataDir: string; key: string }> {
	const dataDir = newDataDir();
	const where = { dataDir, smtpHost: '127.0.0.1', smtpPort: await freePort(), httpHost: '127.0.0.1', httpPort: await freePort() };
	const server = await Served.start(
		['--data-dir', dataDir, '--smtp-port', String(where.smtpPort), '--http-port', String(where.httpPort)],
		{},
		where,
	);
	const key = await server.key();
	try {
		await use(server, key);
	} finally {
		await server.stop();
	}
	return { dataDir, key };
}

/** Sends through the API as the admin (its credits added with the CLI, its address reserved): resolves with the answer. */
async function sendAs(server: Served, key: string, to: string): Promise<{ status: number; body: { status: string } }> {
	cli('credits', 'add', 'admin', '5', '--data-dir', server.where.dataDir);
	await server.api('/api/addresses/me%40flags.test', { key, method: 'POST' });
	return server.api('/api/outgoing-messages', { key, method: 'POST', body: { from: 'me@flags.test', to, subject: 'out', text: 'out' } });
}

/** Gives an address of the admin a webhook; resolves with the message's id and the account's key once mail is sent to it. */
async function mailWithWebhook(server: Served, url: string, address = 'hook@flags.test'): Promise<{ key: string; id: string }> {
	const key = await server.key();
	await server.api(`/api/addresses/${encodeURIComponent(address)}`, { key, method: 'POST', body: { webhook: url } });
	const reply = await server.send({ to: address });
	return { key, id: /stored as (\S+)/.exec(reply)![1] };
}

const deliveryOf = (server: Served, key: string, address: string, id: string) =>
	server
		.api<WebhookDelivery>(`/api/addresses/${encodeURIComponent(address)}/messages/${id}/webhook-status`, { key })
		.then(({ body }) => body);

/** 100,000 links in 5 MB of HTML: far longer to parse than 50 ms. */
function slowMessage(to: string): Buffer {
	const html = `<p>${Array.from({ length: 100_000 }, (_, i) => `<a href="https://x${i}.slow.test/">link ${i}</a>`).join('</p><p>')}</p>`;
	return Buffer.from([`From: a@sender.test`, `To: ${to}`, 'Subject: slow', 'Content-Type: text/html', '', html, ''].join(CRLF));
}

/** What a case needs before the server starts, passed on to its check. */
interface Fixture {
	dataDir?: string;
	key?: string;
	relay?: TestRelay;
	receiver?: WebhookReceiver;
	files?: Record<string, string>;
	/** A receiver's count of the requests it answered, and of the most it answered at once. */
	concurrency?: { inFlight: number; most: number; answered: number };
	close?: () => Promise<void>;
}

interface FlagCase {
	/** The settings the case gives (flag names without the dashes), each as a flag in one run and as its variable in the other. */
	settings: Record<string, string | ((fixture: Fixture, where: Where) => string)>;
	/** Flags the effect also needs, given as flags in both runs. */
	also?: (fixture: Fixture) => string[];
	prepare?: () => Promise<Fixture>;
	/** Shows the setting's effect on the running server: it would not hold with the default. */
	check: (server: Served, fixture: Fixture) => Promise<void>;
}

const loopbackTwo = '127.0.0.2';

const CASES: Record<string, FlagCase> = {
	'smtp-host': {
		settings: { 'smtp-host': loopbackTwo },
		check: async ({ where }) => {
			expect(await accepts(loopbackTwo, where.smtpPort)).toBe(true);
			expect(await accepts('127.0.0.1', where.smtpPort)).toBe(false);
		},
	},
	'smtp-port': {
		settings: { 'smtp-port': (_fixture, where) => String(where.smtpPort) },
		check: async (server) => expect((await server.smtp()).greeting).toMatch(/^220 /),
	},
	'http-host': {
		settings: { 'http-host': loopbackTwo },
		check: async (server) => {
			expect((await server.api('/openapi.json')).status).toBe(200);
			expect(await accepts('127.0.0.1', server.where.httpPort)).toBe(false);
		},
	},
	'http-port': {
		settings: { 'http-port': (_fixture, where) => String(where.httpPort) },
		check: async (server) => expect((await server.api('/openapi.json')).status).toBe(200),
	},
	'data-dir': {
		settings: { 'data-dir': (_fixture, where) => where.dataDir },
		check: async (server) => {
			await server.send({ to: 'kept@flags.test', subject: 'in the data folder' });
			expect(server.query<{ subject: string }>('SELECT subject FROM messages')).toEqual([{ subject: 'in the data folder' }]);
		},
	},
	domains: {
		settings: { domains: 'allowed.test' },
		check: async (server) => {
			const { client } = await server.smtp();
			await client.command('EHLO client.test');
			await client.command('MAIL FROM:<a@sender.test>');
			expect(await client.command('RCPT TO:<x@other.test>')).toMatch(/^550 /);
			expect(await client.command('RCPT TO:<x@allowed.test>')).toMatch(/^250 /);
			client.close();
		},
	},
	'max-message-size': {
		settings: { 'max-message-size': '2KB' },
		check: async (server) => {
			const { client } = await server.smtp();
			expect(await client.command('EHLO client.test')).toMatch(/SIZE 2048/);
			client.close();
			await expect(server.send({ to: 'big@flags.test', text: 'x'.repeat(4096) })).rejects.toMatchObject({ responseCode: 552 });
		},
	},
	'tls-cert': {
		prepare: () => Promise.resolve({ files: selfSignedCertificate(newDataDir()) }),
		settings: { 'tls-cert': ({ files }) => files!.cert, 'tls-key': ({ files }) => files!.key },
		check: async (server) => {
			const { client } = await server.smtp();
			expect(await client.command('EHLO client.test')).toMatch(/STARTTLS/);
			client.close();
		},
	},
	'log-level': {
		settings: { 'log-level': 'silent' },
		check: async (server) => {
			await server.send({ to: 'quiet@flags.test' });
			expect(server.printed).not.toMatch(/"level":/);
			expect(server.printed).toContain('Created the admin account'); // printed, not logged
		},
	},
	hostname: {
		settings: { hostname: 'mx.flags.test' },
		check: async (server) => expect((await server.smtp()).greeting).toMatch(/^220 mx\.flags\.test /),
	},
	durability: {
		settings: { durability: 'normal' },
		// "full" (the baseline) holds the WAL open on the main thread and the ingest thread to fsync it before acknowledging.
		check: async (server) => {
			const base = await baseline.get();
			await waitFor(() => base.walHandles() - server.walHandles() === 2, 'two files fewer open on the WAL than with full durability');
		},
	},
	'parse-workers': {
		settings: { 'parse-workers': '3' },
		// The baseline runs with --parse-workers 1.
		check: async (server) => {
			const workers = (s: Served) => s.threads().filter((name) => name === 'WorkerThread').length;
			const base = await baseline.get();
			await waitFor(() => workers(server) - workers(base) === 2, 'two more worker threads than with --parse-workers 1');
		},
	},
	'rate-limit-key': {
		settings: { 'rate-limit-key': '2' },
		check: async (server) => {
			const key = await server.key();
			const statuses = [];
			for (let i = 0; i < 3; i++) statuses.push((await server.api('/api/me', { key })).status);
			expect(statuses).toEqual([200, 200, 429]);
		},
	},
	'rate-limit-ip': {
		settings: { 'rate-limit-ip': '2' },
		check: async (server) => {
			const statuses = [];
			for (let i = 0; i < 3; i++) statuses.push((await server.api('/api/addresses/anyone%40flags.test/messages')).status);
			expect(statuses).toEqual([200, 200, 429]);
		},
	},
	'shutdown-timeout': {
		settings: { 'shutdown-timeout': '1' },
		check: async (server) => {
			// A transaction that never finishes its DATA holds the shutdown up: for a second, not the default ten.
			const { client } = await server.smtp();
			await client.envelope('a@sender.test', ['slow@flags.test']);
			client.write('Subject: never ends\r\n\r\n');
			const stopping = Date.now();
			server.child.kill('SIGTERM');
			expect(await server.exited).toEqual({ code: 0, signal: null });
			expect(Date.now() - stopping).toBeLessThan(5000);
			client.close();
		},
	},
	'relay-url': {
		prepare: async () => ({ relay: await startTestRelay() }),
		settings: { 'relay-url': ({ relay }) => relay!.url },
		check: async (server, { relay }) => {
			expect((await sendAs(server, await server.key(), 'far@remote.test')).status).toBe(200);
			const [relayed] = await relay!.waitFor(1);
			expect(relayed.to).toEqual(['far@remote.test']);
		},
	},
	'local-domains': {
		prepare: async () => ({ relay: await startTestRelay() }),
		also: ({ relay }) => ['--relay-url', relay!.url],
		settings: { 'local-domains': 'partner.test' },
		check: async (server, { relay }) => {
			const key = await server.key();
			expect((await sendAs(server, key, 'someone@partner.test')).body.status).toBe('delivered');
			expect((await server.inbox('someone@partner.test')).map((m) => m.subject)).toEqual(['out']);
			expect(relay!.received).toEqual([]);
		},
	},
	'relay-retry': {
		prepare: async () => {
			let refused = 0;
			// Refuses the first attempt for the time being: the retry one second later gets through.
			return { relay: await startTestRelay({ refuse: () => (refused++ === 0 ? { code: 451, message: 'try again later' } : undefined) }) };
		},
		also: ({ relay }) => ['--relay-url', relay!.url],
		settings: { 'relay-retry': '1s' },
		check: async (server, { relay }) => {
			expect((await sendAs(server, await server.key(), 'later@remote.test')).body.status).toBe('queued');
			await relay!.waitFor(1); // the default waits a minute first
		},
	},
	'dkim-domain': {
		prepare: async () => {
			const key = join(newDataDir(), 'dkim.pem');
			execFileSync('openssl', ['genrsa', '-out', key, '2048'], { stdio: 'ignore' });
			return { relay: await startTestRelay(), files: { key } };
		},
		also: ({ relay }) => ['--relay-url', relay!.url],
		settings: { 'dkim-domain': 'flags.test', 'dkim-selector': 'sel1', 'dkim-key': ({ files }) => files!.key },
		check: async (server, { relay }) => {
			await sendAs(server, await server.key(), 'signed@remote.test');
			const [relayed] = await relay!.waitFor(1);
			expect(relayed.raw).toMatch(/^DKIM-Signature: .*\bd=flags\.test;.*\bs=sel1;/ms);
		},
	},
	'webhook-timeout': {
		prepare: async () => {
			const receiver = new WebhookReceiver();
			receiver.reply = () => ({ status: 200, delayMs: 5000 });
			await receiver.listen();
			return { receiver, close: () => receiver.close() };
		},
		settings: { 'webhook-timeout': '300ms' },
		check: async (server, { receiver }) => {
			const { key } = await mailWithWebhook(server, `${receiver!.url}/hook`);
			const attempts = await waitFor(async () => {
				const { body } = await server.api<WebhookAttempt[]>('/api/webhook-activity', { key });
				return body.length ? body : undefined;
			}, 'the first attempt');
			expect(attempts[0]).toMatchObject({ status: 'retrying', error: 'timed out after 300 ms' });
		},
	},
	'webhook-retry': {
		prepare: async () => {
			const receiver = new WebhookReceiver();
			receiver.reply = () => ({ status: 500 });
			await receiver.listen();
			return { receiver, close: () => receiver.close() };
		},
		settings: { 'webhook-retry': '0s,500ms' },
		check: async (server, { receiver }) => {
			const { key, id } = await mailWithWebhook(server, `${receiver!.url}/hook`);
			const failed = await waitFor(async () => {
				const delivery = await deliveryOf(server, key, 'hook@flags.test', id);
				return delivery.status === 'failed' ? delivery : undefined;
			}, 'the delivery to fail after its two attempts');
			expect(failed.attempts).toBe(2);
		},
	},
	'webhook-allow-private': {
		settings: { 'webhook-allow-private': 'false' },
		check: async (server) => {
			const { key, id } = await mailWithWebhook(server, 'http://127.0.0.1:9/hook');
			await waitFor(async () => (await deliveryOf(server, key, 'hook@flags.test', id)).status === 'refused', 'the refusal');
		},
	},
	'webhook-host-concurrency': {
		prepare: async () => {
			// Counts the requests it is answering at once, each held 300 ms.
			const state = { inFlight: 0, most: 0, answered: 0 };
			const receiver = createHttpServer((request, response) => {
				state.most = Math.max(state.most, ++state.inFlight);
				request.resume();
				setTimeout(() => {
					state.inFlight--;
					state.answered++;
					response.end();
				}, 300);
			});
			await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
			const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
			return { files: { url }, concurrency: state, close: () => new Promise<void>((resolve) => receiver.close(() => resolve())) };
		},
		settings: { 'webhook-host-concurrency': '1' },
		check: async (server, { files, concurrency }) => {
			const key = await server.key();
			for (const address of ['one@flags.test', 'two@flags.test', 'three@flags.test']) {
				await server.api(`/api/addresses/${encodeURIComponent(address)}`, { key, method: 'POST', body: { webhook: `${files!.url}/hook` } });
			}
			await server.send({ to: ['one@flags.test', 'two@flags.test', 'three@flags.test'] });
			await waitFor(() => concurrency!.answered === 3, 'three deliveries');
			expect(concurrency!.most).toBe(1);
		},
	},
	'webhook-activity-days': {
		prepare: async () => {
			const receiver = new WebhookReceiver();
			await receiver.listen();
			// A delivery made two days ago, as its records would say.
			const { dataDir, key } = await usedDataDir(async (server) => {
				const { key: admin, id } = await mailWithWebhook(server, `${receiver.url}/hook`);
				await waitFor(async () => (await deliveryOf(server, admin, 'hook@flags.test', id)).status === 'delivered', 'the delivery');
			});
			const db = new Database(join(dataDir, 'mailroom.sqlite'));
			const twoDaysAgo = Date.now() - 2 * 24 * 3600 * 1000;
			db.prepare('UPDATE webhook_attempts SET time = ?').run(twoDaysAgo);
			db.prepare('UPDATE webhook_deliveries SET updated = ?').run(twoDaysAgo);
			db.close();
			return { dataDir, key, receiver, close: () => receiver.close() };
		},
		settings: { 'webhook-activity-days': '1' },
		check: async (server, { key }) => {
			// Pruned at the start: kept seven days by default.
			expect((await server.api<WebhookAttempt[]>('/api/webhook-activity', { key })).body).toEqual([]);
		},
	},
	'smtp-max-clients': {
		settings: { 'smtp-max-clients': '1' },
		check: async (server) => {
			const first = await server.smtp();
			const second = await server.smtp();
			expect(first.greeting).toMatch(/^220 /);
			expect(second.greeting).toMatch(/^421 /);
			first.client.close();
		},
	},
	'smtp-max-clients-per-ip': {
		settings: { 'smtp-max-clients-per-ip': '1' },
		check: async (server) => {
			const first = await server.smtp();
			const second = await server.smtp();
			expect(first.greeting).toMatch(/^220 /);
			expect(second.greeting).toMatch(/^421 .*Too many connections from 127\.0\.0\.1/);
			first.client.close();
		},
	},
	'smtp-max-recipients': {
		settings: { 'smtp-max-recipients': '1' },
		check: async (server) => {
			const { client } = await server.smtp();
			await client.command('EHLO client.test');
			await client.command('MAIL FROM:<a@sender.test>');
			expect(await client.command('RCPT TO:<one@flags.test>')).toMatch(/^250 /);
			expect(await client.command('RCPT TO:<two@flags.test>')).toMatch(/^452 /);
			client.close();
		},
	},
	'smtp-socket-timeout': {
		settings: { 'smtp-socket-timeout': '1s' },
		check: async (server) => {
			const { client } = await server.smtp();
			const idle = Date.now();
			expect(await client.reply()).toMatch(/^421 /);
			await client.closed;
			expect(Date.now() - idle).toBeLessThan(5000);
		},
	},
	'smtp-bare-lf': {
		settings: { 'smtp-bare-lf': 'accept' },
		check: async (server) => {
			const { client } = await server.smtp();
			await client.envelope('a@sender.test', ['bare@flags.test']);
			client.write('Subject: bare\nLF only\n\r\n.\r\n');
			expect(await client.reply()).toMatch(/^250 /); // 550 5.5.2 by default
			client.close();
		},
	},
	'parse-timeout': {
		settings: { 'parse-timeout': '50ms' },
		check: async (server) => {
			await server.send({ envelope: { from: 'a@sender.test', to: ['slow@flags.test'] }, raw: slowMessage('slow@flags.test') });
			// Stored unparsed: no subject, no sender, no links.
			expect(await server.inbox('slow@flags.test')).toEqual([expect.objectContaining({ subject: '', from: [], links: [] })]);
		},
	},
	'retention-max-age': {
		prepare: async () => {
			const { dataDir } = await usedDataDir(async (server) => void (await server.send({ to: 'old@flags.test' })));
			const db = new Database(join(dataDir, 'mailroom.sqlite'));
			db.prepare('UPDATE messages SET received = ?').run(Date.now() - 2 * 3600 * 1000);
			db.close();
			return { dataDir };
		},
		settings: { 'retention-max-age': '1h' },
		check: async (server) => {
			await waitFor(async () => (await server.inbox('old@flags.test')).length === 0, 'the two-hour-old message to go');
		},
	},
	'retention-max-per-inbox': {
		prepare: async () => {
			const { dataDir } = await usedDataDir(async (server) => {
				for (const subject of ['older', 'newer']) await server.send({ to: 'full@flags.test', subject });
			});
			return { dataDir };
		},
		settings: { 'retention-max-per-inbox': '1' },
		check: async (server) => {
			await waitFor(async () => (await server.inbox('full@flags.test')).length === 1, 'the inbox trimmed to one message');
			expect((await server.inbox('full@flags.test'))[0].subject).toBe('newer');
		},
	},
	'retention-sweep-interval': {
		also: () => ['--retention-max-per-inbox', '1'],
		settings: { 'retention-sweep-interval': '500ms' },
		check: async (server) => {
			for (const subject of ['older', 'newer']) await server.send({ to: 'swept@flags.test', subject });
			// The next sweep trims it: a minute away by default.
			await waitFor(async () => (await server.inbox('swept@flags.test')).length === 1, 'the next sweep');
		},
	},
	'spool-threshold': {
		settings: { 'spool-threshold': '1KB' },
		check: async (server) => {
			await server.send({ to: 'spooled@flags.test', text: 'y'.repeat(4096) });
			// Received into a spool file, so its raw source is stored in pieces.
			expect(server.query<{ n: number }>('SELECT count(*) AS n FROM content_raw_pieces')).toEqual([{ n: 1 }]);
		},
	},
};

/** The flags `mailroom serve --help` lists. */
function helpFlags(): string[] {
	return [...cli('serve', '--help').matchAll(/^\s+--([a-z-]+)/gm)].map((match) => match[1]).filter((flag) => flag !== 'help');
}

/** The server every case is held against where an effect is a difference (threads, open files): defaults but for the ports. */
const baseline = (() => {
	let started: Promise<Served> | undefined;
	return {
		get: () =>
			(started ??= (async () => {
				const where = {
					dataDir: newDataDir(),
					smtpHost: '127.0.0.1',
					smtpPort: await freePort(),
					httpHost: '127.0.0.1',
					httpPort: await freePort(),
				};
				const args = [
					'--data-dir',
					where.dataDir,
					'--smtp-port',
					String(where.smtpPort),
					'--http-port',
					String(where.httpPort),
					'--parse-workers',
					'1',
				];
				const server = await Served.start(args, {}, where);
				await server.send({ to: 'warm@flags.test' });
				return server;
			})()),
		stop: async () => (await started)?.stop(),
	};
})();

const settingOf = (flag: string) => SETTINGS.find((setting) => setting.flag.startsWith(`--${flag} `))!;

describe('mailroom serve: every flag, and its environment variable, changes the running server', () => {
	afterAll(() => baseline.stop());

	it('has a case here for every flag serve --help lists', () => {
		const covered = Object.values(CASES).flatMap((testCase) => Object.keys(testCase.settings));
		expect([...new Set(covered)].sort()).toEqual(helpFlags().sort());
	});

	describe.each(Object.entries(CASES))('--%s', (_name, testCase) => {
		it.each(['flag', 'environment variable'] as const)('as its %s', async (form) => {
			const fixture = (await testCase.prepare?.()) ?? {};
			const where: Where = {
				dataDir: fixture.dataDir ?? newDataDir(),
				smtpHost: '127.0.0.1',
				smtpPort: await freePort(),
				httpHost: '127.0.0.1',
				httpPort: await freePort(),
			};
			const settings = Object.fromEntries(
				Object.entries(testCase.settings).map(([flag, value]) => [flag, typeof value === 'string' ? value : value(fixture, where)]),
			);
			if (settings['smtp-host']) where.smtpHost = settings['smtp-host'];
			if (settings['http-host']) where.httpHost = settings['http-host'];
			// The settings every start needs, as flags, unless they are what this case gives.
			const base: Record<string, string> = {
				'data-dir': where.dataDir,
				'smtp-port': String(where.smtpPort),
				'http-port': String(where.httpPort),
				'parse-workers': '1',
			};
			const args = Object.entries(base)
				.filter(([flag]) => !(flag in settings))
				.flatMap(([flag, value]) => [`--${flag}`, value]);
			args.push(...(testCase.also?.(fixture) ?? []));
			const env: Record<string, string> = {};
			for (const [flag, value] of Object.entries(settings)) {
				if (form === 'flag') args.push(`--${flag}`, value);
				else env[settingOf(flag).env] = value;
			}
			const server = await Served.start(args, env, where);
			try {
				await testCase.check(server, fixture);
			} finally {
				await server.stop();
				await fixture.relay?.close();
				await fixture.close?.();
			}
		});
	});
});
