import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmdirSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Readiness } from 'mailroom-server/dist/schemas/health';
import { startTestMailroom, TEST_ENGINE, type TestMailroom } from '../../../helpers/mailroom';
import { startOwnPostgres, type OwnPostgres } from '../../../helpers/postgres';
import { RawSmtp } from '../../../helpers/raw-smtp';
import { postOutgoing, senderAccount } from '../../../helpers/outgoing';
import { waitFor } from '../../../helpers/webhook-receiver';

/** GET /livez and GET /readyz through real HTTP: no key, never cached, 503 with the reasons when the node should get no traffic. */

const READY: Readiness = {
	ready: true,
	phase: 'running',
	checks: { store: 'ok', disk: 'ok', smtp: 'listening', http: 'listening' },
	problems: [],
};

/** The first 503 GET /readyz answers. */
const notReady = (server: TestMailroom) =>
	waitFor(async () => {
		const answer = await server.api<Readiness>('/readyz');
		return answer.status === 503 ? answer : undefined;
	}, 'readyz to answer 503');

describe('GET /livez and GET /readyz of a running server', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		// A low limit, so that a balancer asking often would run into it were the checks counted.
		server = await startTestMailroom({ rateLimitIp: 5 });
	});
	afterAll(() => server.stop());

	it('answer 200 without a key, not to be cached', async () => {
		const live = await server.api('/livez');
		expect(live).toMatchObject({ status: 200, body: { live: true } });
		expect(live.headers.get('cache-control')).toBe('no-store');
		const ready = await server.api('/readyz');
		expect(ready).toMatchObject({ status: 200, body: READY });
		expect(ready.headers.get('cache-control')).toBe('no-store');
	});

	it('are not rate limited, however often they are asked', async () => {
		for (let i = 0; i < 12; i++) {
			expect((await server.api('/livez')).status).toBe(200);
			expect((await server.api('/readyz')).status).toBe(200);
		}
		expect((await server.api('/api/addresses/a%40health.test/messages')).status).toBe(200);
	});
});

describe('GET /readyz during a shutdown', () => {
	it('answers 503, phase stopping, while an SMTP transaction finishes, and /livez still 200', async () => {
		const server = await startTestMailroom();
		const { client } = await RawSmtp.connect(server.smtpPort);
		let stopped: Promise<void> | undefined;
		try {
			// A transaction in progress holds the shutdown up (up to --shutdown-timeout), and the API with it.
			await client.envelope('a@sender.test', ['late@health.test']);
			stopped = server.stop();
			const ready = await notReady(server);
			expect(ready.body).toEqual({
				ready: false,
				phase: 'stopping',
				// The SMTP listener takes no new connections from the shutdown's start; the API answers until the transaction is done.
				checks: { store: 'unchecked', disk: 'unchecked', smtp: 'closed', http: 'listening' },
				problems: ['the server is shutting down', 'the SMTP listener is closed'],
			});
			expect(ready.headers.get('cache-control')).toBe('no-store');
			expect((await server.api('/livez')).status).toBe(200);
			client.write('Subject: late\r\n\r\nfinished during the shutdown\r\n.\r\n');
			expect(await client.reply()).toMatch(/^250 /);
		} finally {
			client.close();
			await (stopped ?? server.stop());
		}
	});
});

describe('GET /readyz when the store goes away (PostgreSQL)', () => {
	let postgres: OwnPostgres;
	let server: TestMailroom;
	beforeAll(async () => {
		postgres = await startOwnPostgres();
		server = await startTestMailroom({ databaseUrl: await postgres.newDatabase() });
	}, 60_000);
	afterAll(async () => {
		await server?.stop();
		await postgres?.stop();
	}, 60_000);

	it('answers 503 saying the store did not answer while the database is down, and 200 again once it is back', async () => {
		expect(await server.api('/readyz')).toMatchObject({ status: 200, body: READY });
		await postgres.halt();
		try {
			const away = await notReady(server);
			expect(away.body).toMatchObject({
				ready: false,
				phase: 'running',
				checks: { store: 'unavailable', disk: 'ok', smtp: 'listening', http: 'listening' },
				problems: [expect.stringMatching(/^the store did not answer/)],
			});
			expect((await server.api('/livez')).status).toBe(200);
		} finally {
			await postgres.resume();
		}
		await waitFor(async () => (await server.api('/readyz')).status === 200, 'readyz to answer 200 again', 20_000);
		expect((await server.api('/readyz')).body).toEqual(READY);
	}, 60_000);
});

/** A tmpfs of `size` mounted on a new folder (we run as root, here and in CI); a mount that fails fails the test, saying why. */
function mountTmpfs(size: string): { dir: string; unmount: () => void } {
	const dir = mkdtempSync(join(tmpdir(), 'mailroom-tmpfs-'));
	try {
		execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
	} catch (err) {
		rmdirSync(dir);
		const why = (err as { stderr?: Buffer }).stderr?.toString().trim() || (err as Error).message;
		throw new Error(`mounting a tmpfs of ${size} at ${dir} failed (the test needs root, as it has in CI): ${why}`);
	}
	return {
		dir,
		unmount: () => {
			execFileSync('umount', [dir]);
			rmdirSync(dir);
		},
	};
}

/** Writes `path` until the disk has no byte left; returns nothing, the file stays until it is removed. */
function fillDisk(path: string): void {
	const fd = openSync(path, 'w');
	try {
		for (const chunk of [Buffer.alloc(64 * 1024, 'x'), Buffer.alloc(512, 'x')]) {
			try {
				for (;;) writeSync(fd, chunk);
			} catch (err) {
				if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
			}
		}
	} finally {
		closeSync(fd);
	}
}

/** A message of about `bytes` of 7-bit text lines, sent raw; resolves with the server's reply to its DATA. */
async function sendOfSize(server: TestMailroom, subject: string, bytes: number): Promise<string> {
	const { client } = await RawSmtp.connect(server.smtpPort);
	try {
		await client.envelope('a@sender.test', ['full@disk.test']);
		const line = `${'z'.repeat(70)}\r\n`;
		client.write(`Subject: ${subject}\r\n\r\n${line.repeat(Math.ceil(bytes / line.length))}.\r\n`);
		return await client.reply();
	} finally {
		client.close();
	}
}

/** The failures for lack of space that GET /readyz reports (a 503), each as its reason; `what` failed. */
async function failures(server: TestMailroom, what = 'storing a message'): Promise<string[]> {
	const { status, body } = await server.api<Readiness>('/readyz');
	expect(status).toBe(503);
	const failure = new RegExp(`^${what} failed for lack of space \\d+ s ago: `);
	return body.problems.filter((problem) => failure.test(problem)).map((problem) => problem.replace(failure, ''));
}

describe('GET /readyz when the disk of the data folder is full', () => {
	const KB = 1024;
	let disk: { dir: string; unmount: () => void } | undefined;
	let dataDir: string;
	let server: TestMailroom | undefined;
	let sender: { key: string };
	beforeAll(async () => {
		disk = mountTmpfs('8m');
		// A folder on it, for the server's stop removes its data folder (a mount point cannot be).
		dataDir = join(disk.dir, 'data');
		mkdirSync(dataDir);
		// Messages from 1 MB on are spooled into the data folder; smaller ones go from memory into the store.
		server = await startTestMailroom({ dataDir, maxMessageSize: 2048 * KB, spoolThreshold: 1024 * KB });
		sender = await senderAccount(server, 'sender', 'me@disk.test', 10);
	});
	afterAll(async () => {
		await server?.stop();
		disk?.unmount();
	});

	it('answers 503 naming the folder and its free space while SMTP refuses with 451, and 200 once space is freed; nothing acknowledged is lost', async () => {
		const mail = server!;
		expect(await mail.api('/readyz')).toMatchObject({ status: 200, body: READY });
		const replies: Record<string, string> = { before: await sendOfSize(mail, 'before', 1 * KB) };
		expect(replies.before).toMatch(/^250 /);

		const filler = join(disk!.dir, 'filler');
		fillDisk(filler);
		const full = await notReady(mail);
		expect(full.body).toMatchObject({ ready: false, phase: 'running', checks: { store: 'ok', disk: 'full' } });
		expect(full.body.problems).toEqual([
			expect.stringMatching(
				new RegExp(
					`^the disk of ${dataDir} has \\d+(\\.\\d)? [KM]?B free, less than one message of the largest size \\(2 MB\\): ` +
						'mail may be refused with 451 until space is freed$',
				),
			),
		]);

		// A small message may still fit in the space SQLite's log had: if it is acknowledged, it must be kept.
		replies.small = await sendOfSize(mail, 'small', 1 * KB);
		// One from memory cannot grow SQLite's log (PostgreSQL keeps its data elsewhere)…
		replies.inMemory = await sendOfSize(mail, 'inMemory', 800 * KB);
		if (TEST_ENGINE === 'sqlite') {
			expect(replies.inMemory).toMatch(/^451 4\.3\.0 /);
			expect(await failures(mail)).toEqual([expect.stringMatching(/^SQLITE_FULL: database or disk is full$/)]);
			// A write of the API is refused alike (507, nothing changed), and /readyz hears of it too.
			const sent = await postOutgoing(mail, sender.key, {
				from: 'me@disk.test',
				to: 'full@disk.test',
				subject: 'api',
				text: 'y'.repeat(800 * KB),
			});
			expect(sent.status).toBe(507);
			expect(sent.body).toEqual({
				error: 'Insufficient Storage',
				message: expect.stringMatching(/^The server's disk is full: nothing was changed/),
			});
			expect(await failures(mail, 'storing a change made through the API')).toEqual([
				expect.stringMatching(/^SQLITE_FULL: database or disk is full$/),
			]);
		} else expect(replies.inMemory).toMatch(/^250 /);
		// … and a spooled one cannot be written to the spool, on either engine.
		replies.spooled = await sendOfSize(mail, 'spooled', 1200 * KB);
		expect(replies.spooled).toMatch(/^451 4\.3\.0 /);
		expect(await failures(mail)).toEqual([expect.stringMatching(/^ENOSPC: no space left on device/)]);

		unlinkSync(filler);
		// The disk is measured again within a second: the folder's problem goes by itself.
		await waitFor(async () => {
			const { body } = await mail.api<Readiness>('/readyz');
			return !body.problems.some((problem) => problem.startsWith('the disk of'));
		}, 'readyz to find the space freed');
		// Mail is stored again, and with it the failure is forgotten.
		replies.after = await sendOfSize(mail, 'after', 1200 * KB);
		expect(replies.after).toMatch(/^250 /);
		expect(await mail.api('/readyz')).toMatchObject({ status: 200, body: READY });

		const acknowledged = Object.keys(replies).filter((subject) => replies[subject].startsWith('250 '));
		const listed = (await mail.api<{ subject: string }[]>('/api/addresses/full%40disk.test/messages')).body.map((m) => m.subject);
		expect(listed.sort()).toEqual(acknowledged.sort());
	}, 60_000);
});
