/**
 * Crash safety (slow; `npm run test:crash`, not part of `npm test`): runs the real server
 * process, keeps SMTP ingest going from several clients, kills the server with SIGKILL at
 * random moments and restarts it on the same data folder. Every message that got a 250 must
 * then be listed and readable, the database must pass PRAGMA integrity_check, and every such
 * message to an address with a webhook must have its delivery recorded, pending or done.
 * Some messages are past the (lowered) spool threshold, so large messages are killed mid-way too.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import nodemailer from 'nodemailer';
import { WebhookReceiver } from '../helpers/webhook-receiver';
import { DATABASE_FILE } from 'mailroom-server/dist/store/sqlite/database';

const ROOT = join(__dirname, '..', '..');
const KILL_ROUNDS = 5;
const CLIENTS = 6;
const INBOXES = 400;
const HOOK_INBOX = 'hook@crash.test';
/** Messages at least this large are spooled; every tenth message carries an attachment that takes it past. */
const SPOOL_THRESHOLD = 16 * 1024;
const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');

jest.setTimeout(120_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const enc = encodeURIComponent;

/** A port that was free a moment ago, so every restart listens on the same one. */
function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as AddressInfo;
			server.close(() => resolve(port));
		});
	});
}

interface Acked {
	inbox: string;
	id: string;
	/** MD5 of the attachment of a spooled message. */
	attachment?: string;
}

class ServerProcess {
	private child?: ChildProcess;
	output = '';

	constructor(
		private readonly dataDir: string,
		readonly smtpPort: number,
		readonly httpPort: number,
	) {}

	get httpUrl(): string {
		return `http://127.0.0.1:${this.httpPort}`;
	}

	async start(): Promise<void> {
		const flags = {
			'--data-dir': this.dataDir,
			'--smtp-port': String(this.smtpPort),
			'--http-port': String(this.httpPort),
			'--log-level': 'warn',
			'--durability': 'full',
			'--parse-workers': '2',
			'--rate-limit-key': '10000000',
			'--rate-limit-ip': '10000000',
			'--webhook-retry': '0s,200ms,200ms,200ms,200ms,200ms,200ms,200ms',
			'--spool-threshold': String(SPOOL_THRESHOLD),
		};
		this.child = spawn(process.execPath, [require.resolve('mailroom-server/dist/cli.js'), 'serve', ...Object.entries(flags).flat()], {
			cwd: ROOT,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		this.child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
		this.child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
		const deadline = Date.now() + 20_000;
		for (;;) {
			if (this.child.exitCode !== null) throw new Error(`the server exited with ${this.child.exitCode}:\n${this.output}`);
			try {
				if ((await fetch(`${this.httpUrl}/api/addresses/ready%40crash.test/messages`)).status === 200) return;
			} catch {
				// not listening yet
			}
			if (Date.now() > deadline) throw new Error(`the server did not start:\n${this.output}`);
			await sleep(50);
		}
	}

	async kill(signal: NodeJS.Signals): Promise<void> {
		const child = this.child!;
		if (child.exitCode !== null || child.signalCode !== null) return;
		const exited = new Promise((resolve) => child.once('exit', resolve));
		child.kill(signal);
		await exited;
	}

	/** The API key the first start printed for the admin account. */
	adminKey(): string {
		return /^\s+(mr_\S+)$/m.exec(this.output)![1];
	}
}

/** One SMTP client sending unique messages over a reused connection until stopped, noting each 250. */
async function sendLoop(server: ServerProcess, client: number, acked: Acked[], running: () => boolean): Promise<number> {
	const transport = nodemailer.createTransport({
		host: '127.0.0.1',
		port: server.smtpPort,
		pool: true,
		maxConnections: 1,
		maxMessages: Infinity,
		connectionTimeout: 2000,
		greetingTimeout: 2000,
		socketTimeout: 5000,
	});
	let failures = 0;
	for (let n = 0; running(); n++) {
		const inbox = n % 10 === 0 ? HOOK_INBOX : `c${(client * 7919 + n) % INBOXES}@crash.test`;
		const attachment = n % 10 === 5 ? Buffer.alloc(2 * SPOOL_THRESHOLD, `${client}/${n} `) : undefined;
		try {
			const info = await transport.sendMail({
				from: `client${client}@sender.test`,
				to: inbox,
				subject: `client ${client} message ${n}`,
				text: `body of ${client}/${n}`,
				attachments: attachment && [{ filename: 'large.bin', content: attachment }],
			});
			const match = /stored as (\S+)$/.exec(info.response);
			if (!match) throw new Error(`unexpected reply ${info.response}`);
			acked.push({ inbox, id: match[1], attachment: attachment && md5(attachment) });
		} catch (err) {
			// The server was killed mid-conversation or is restarting: no 250, nothing promised.
			if ((err as { responseCode?: number }).responseCode === 250) throw err;
			failures++;
			await sleep(20);
		}
	}
	transport.close();
	return failures;
}

async function api(server: ServerProcess, path: string, key: string): Promise<{ status: number; body: unknown; text: string }> {
	const response = await fetch(`${server.httpUrl}${path}`, { headers: { 'Service-Key': key } });
	const text = await response.text();
	return {
		status: response.status,
		text,
		body: response.headers.get('content-type')?.includes('json') ? (JSON.parse(text) as unknown) : text,
	};
}

/** Runs `work` over `items` with at most `limit` in flight. */
async function inParallel<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
	let next = 0;
	await Promise.all(
		Array.from({ length: limit }, async () => {
			while (next < items.length) await work(items[next++]);
		}),
	);
}

describe('crash safety', () => {
	const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-crash-'));
	const receiver = new WebhookReceiver();
	let server: ServerProcess;

	beforeAll(async () => {
		await receiver.listen();
		server = new ServerProcess(dataDir, await freePort(), await freePort());
		await server.start();
	});
	afterAll(async () => {
		await server?.kill('SIGKILL');
		await receiver.close();
		rmSync(dataDir, { recursive: true, force: true });
	});

	it('keeps every acknowledged message and webhook delivery through repeated SIGKILLs', async () => {
		const key = server.adminKey();
		const admin = (path: string, method: string, body?: unknown) =>
			fetch(`${server.httpUrl}${path}`, {
				method,
				headers: { 'Service-Key': key, ...(body ? { 'Content-Type': 'application/json' } : {}) },
				body: body ? JSON.stringify(body) : undefined,
			});
		expect((await admin(`/api/addresses/${enc(HOOK_INBOX)}`, 'POST')).status).toBe(200);
		expect((await admin(`/api/private-address-forwarding/${enc(HOOK_INBOX)}`, 'PUT', { webhook: `${receiver.url}/hook` })).status).toBe(
			200,
		);

		const acked: Acked[] = [];
		let running = true;
		const clients = Array.from({ length: CLIENTS }, (_, client) => sendLoop(server, client, acked, () => running));
		const ackedBeforeKill: number[] = [];
		for (let round = 0; round < KILL_ROUNDS; round++) {
			// Kill only while ingest is running: after a few new 250s, at a random moment.
			const resumedAt = acked.length;
			for (const deadline = Date.now() + 30_000; acked.length < resumedAt + 5; await sleep(10)) {
				if (Date.now() > deadline) throw new Error(`ingest did not resume after kill ${round}:\n${server.output}`);
			}
			await sleep(Math.random() * 1000);
			ackedBeforeKill.push(acked.length);
			await server.kill('SIGKILL');
			await sleep(Math.random() * 300);
			await server.start();
		}
		await sleep(500);
		running = false;
		const failures = (await Promise.all(clients)).reduce((a, b) => a + b, 0);
		console.log(
			`crash test: ${acked.length} messages acknowledged, ${failures} sends cut off by ${KILL_ROUNDS} kills (acknowledged before each kill: ${ackedBeforeKill.join(', ')})`,
		);
		expect(new Set(acked.map((a) => a.id)).size).toBe(acked.length);

		// Every acknowledged message is listed in its inbox and its text is readable.
		const byInbox = new Map<string, Set<string>>();
		for (const { inbox, id } of acked) byInbox.set(inbox, (byInbox.get(inbox) ?? new Set()).add(id));
		const missing: string[] = [];
		await inParallel([...byInbox], 8, async ([inbox, ids]) => {
			const listed = new Set<string>();
			for (let until: string | undefined; ;) {
				const page = await api(server, `/api/addresses/${enc(inbox)}/messages?limit=1000${until ? `&until=${enc(until)}` : ''}`, key);
				expect(page.status).toBe(200);
				const records = page.body as { _id: string; received: string }[];
				for (const record of records) listed.add(record._id);
				if (records.length < 1000) break;
				// `until` is exclusive, and `received` is strictly increasing within an inbox.
				until = records[records.length - 1].received;
			}
			for (const id of ids) if (!listed.has(id)) missing.push(`${inbox}/${id}`);
		});
		expect(missing).toEqual([]);
		const unreadable: string[] = [];
		await inParallel(acked, 16, async ({ inbox, id }) => {
			const text = await api(server, `/api/text/${enc(inbox)}/${id}`, key);
			if (text.status !== 200 || !/^body of \d+\/\d+/.test(text.text)) unreadable.push(`${inbox}/${id}: ${text.status}`);
		});
		expect(unreadable).toEqual([]);
		// Spooled messages: their attachment comes back whole from its pieces.
		const spooled = acked.filter((a) => a.attachment);
		expect(spooled.length).toBeGreaterThan(0);
		const damaged: string[] = [];
		await inParallel(spooled, 8, async ({ inbox, id, attachment }) => {
			const response = await fetch(`${server.httpUrl}/api/addresses/${enc(inbox)}/messages/${id}/attachments/large.bin`, {
				headers: { 'Service-Key': key },
			});
			const bytes = Buffer.from(await response.arrayBuffer());
			if (response.status !== 200 || md5(bytes) !== attachment) damaged.push(`${inbox}/${id}: ${response.status}`);
		});
		expect(damaged).toEqual([]);
		// Whatever the kills left in the spool folder was swept by the restarts; nothing is in flight now.
		expect(readdirSync(join(dataDir, 'spool'))).toEqual([]);

		// One last crash, then the database itself, as the next start would find it.
		await server.kill('SIGKILL');
		const db = new Database(join(dataDir, DATABASE_FILE));
		try {
			expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
			const hooked = acked.filter((a) => a.inbox === HOOK_INBOX).map((a) => a.id);
			expect(hooked.length).toBeGreaterThan(0);
			const statusOf = db.prepare('SELECT status FROM webhook_deliveries WHERE message_id = ?');
			const lost = hooked.filter(
				(id) => !['pending', 'delivered'].includes((statusOf.get(id) as { status: string } | undefined)?.status ?? 'none'),
			);
			expect(lost).toEqual([]);
			const counts = db.prepare('SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status').all();
			console.log(`crash test: webhook deliveries by status ${JSON.stringify(counts)}; ${receiver.requests.length} requests received`);
		} finally {
			db.close();
		}
	});
});
