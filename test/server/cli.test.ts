import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Socket, connect } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import nodemailer from 'nodemailer';
import type { DomainRecord } from 'mailroom-server/dist/schemas/domain';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom, tempDataDir, type TestMailroom } from '../helpers/mailroom';
import { enc, expectError, sendMail } from '../helpers/messages';
import { waitFor } from '../helpers/webhook-receiver';

const CLI = require.resolve('mailroom-server/dist/cli.js');

/** The environment without MAILROOM_* settings, so only what a test passes counts. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('MAILROOM_')));
	return { ...env, ...extra };
}

interface CliResult {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** Runs `mailroom <args>` to completion. */
function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
	return new Promise((done, fail) => {
		const child = spawn(process.execPath, [CLI, ...args], { env: cleanEnv(env) });
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk) => (stdout += chunk));
		child.stderr.on('data', (chunk) => (stderr += chunk));
		child.on('error', fail);
		child.on('close', (code) => done({ code, stdout, stderr }));
	});
}

/** A `mailroom serve` process on free ports. */
interface Served {
	child: ChildProcess;
	smtpPort: number;
	httpUrl: string;
	/** Everything printed so far. */
	output(): string;
	exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function serve(dataDir: string, extraArgs: string[] = []): Promise<Served> {
	const args = [
		CLI,
		'serve',
		'--data-dir',
		dataDir,
		'--smtp-port',
		'0',
		'--http-port',
		'0',
		'--parse-workers',
		'1',
		'--log-level',
		'info',
		...extraArgs,
	];
	const child = spawn(process.execPath, args, { env: cleanEnv() });
	let output = '';
	const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
		child.on('exit', (code, signal) => done({ code, signal })),
	);
	const running = new Promise<{ smtp: string; http: string }>((done, fail) => {
		const collect = (chunk: Buffer) => {
			output += chunk.toString();
			const line = output.split('\n').find((text) => text.includes('"Mailroom is running"'));
			if (line) done(JSON.parse(line) as { smtp: string; http: string });
		};
		child.stdout.on('data', collect);
		child.stderr.on('data', collect);
		void exited.then(({ code }) => fail(new Error(`mailroom serve exited (${code}) before it was running:\n${output}`)));
	});
	const { smtp, http } = await running;
	return { child, smtpPort: Number(smtp.split(':').pop()), httpUrl: `http://${http}`, output: () => output, exited };
}

/** GET /api/me on a served process. */
async function me(served: Served, key: string): Promise<{ status: number; body: { name?: string; admin?: boolean } }> {
	const response = await fetch(`${served.httpUrl}/api/me`, { headers: { 'Service-Key': key } });
	return { status: response.status, body: (await response.json()) as { name?: string; admin?: boolean } };
}

// No \b at the end: a key may end in '-', after which \b would cut the match short.
const KEY = /\bmr_[A-Za-z0-9_-]{20,}/;
const keyIn = (text: string) => KEY.exec(text)![0];
const keyIdIn = (text: string) => /API key \(id (\S+)\)/.exec(text)![1];

/** Resolves once nothing listens on the port any more: the server stopped accepting. */
async function untilRefused(port: number): Promise<void> {
	for (;;) {
		const refused = await new Promise<boolean>((done) => {
			const socket = connect(port, '127.0.0.1');
			socket.on('connect', () => {
				socket.destroy();
				done(false);
			});
			socket.on('error', () => done(true));
		});
		if (refused) return;
		await new Promise((wait) => setTimeout(wait, 20));
	}
}

/** Opens the database the way an operator would after a stop, and checks it. */
function inspectDatabase(dataDir: string): { integrity: string; messages: { subject: string }[] } {
	const db = new Database(join(dataDir, 'mailroom.sqlite'), { readonly: true });
	try {
		return {
			integrity: db.pragma('integrity_check', { simple: true }) as string,
			messages: db.prepare('SELECT subject FROM messages ORDER BY seq').all() as { subject: string }[],
		};
	} finally {
		db.close();
	}
}

describe('mailroom CLI', () => {
	const dirs: string[] = [];
	const newDataDir = () => {
		const dir = tempDataDir();
		dirs.push(dir);
		return dir;
	};
	afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

	describe('accounts, keys and credits', () => {
		let dataDir: string;
		beforeEach(() => {
			dataDir = newDataDir();
		});
		/** `mailroom accounts create <name> [flags]`, which must succeed. */
		const createAccount = async (name: string, ...flags: string[]) =>
			expect((await runCli(['accounts', 'create', name, ...flags, '--data-dir', dataDir])).code).toBe(0);

		it('creates and lists accounts', async () => {
			const created = await runCli(['accounts', 'create', 'alice', '--credits', '5', '--data-dir', dataDir]);
			expect(created).toMatchObject({ code: 0, stderr: '' });
			expect(created.stdout).toMatch(/^Created account "alice" \(id \S+\)\.\nAPI key \(id \S+\), shown only this once:\n {2}mr_\S+\n$/);
			expect((await runCli(['accounts', 'create', 'root', '--admin', '--data-dir', dataDir])).code).toBe(0);

			const list = await runCli(['accounts', 'list', '--data-dir', dataDir]);
			expect(list.code).toBe(0);
			const [header, ...rows] = list.stdout.trim().split('\n');
			expect(header.split(/\s+/)).toEqual(['ID', 'NAME', 'CREDITS', 'ROLE', 'CREATED']);
			expect(rows).toHaveLength(2);
			expect(rows[0]).toMatch(/^\S+\s+alice\s+5\s+\d{4}-\d\d-\d\dT/);
			expect(rows[1]).toMatch(/^\S+\s+root\s+0\s+admin\s+\d{4}-\d\d-\d\dT/);
		});

		it('refuses a duplicate or invalid account name and a bad --credits value', async () => {
			await createAccount('alice', '--credits', '5');
			for (const [args, message] of [
				[['accounts', 'create', 'alice'], /already exists/],
				[['accounts', 'create', 'has space'], /account name "has space" must be/],
				[['accounts', 'create', 'bob', '--credits', 'lots'], /--credits must be a whole number >= 0, got "lots"/],
				[['accounts', 'create'], /missing required argument 'name'/],
			] as const) {
				const result = await runCli([...args, '--data-dir', dataDir]);
				expect(result.code).not.toBe(0);
				expect(result.stderr).toMatch(message);
				expect(result.stderr).not.toMatch(/\n\s+at /);
			}
			expect((await runCli(['accounts', 'list', '--data-dir', dataDir])).stdout).not.toMatch(/\bbob\b/);
		});

		it('creates, lists and revokes keys; a revoked key gets 401 from a server on the same data folder at once', async () => {
			await createAccount('alice', '--credits', '5');
			const served = await serve(dataDir);
			try {
				const created = await runCli(['keys', 'create', 'alice', '--label', 'ci runner', '--data-dir', dataDir]);
				expect(created.code).toBe(0);
				const key = keyIn(created.stdout);
				const keyId = keyIdIn(created.stdout);
				expect(await me(served, key)).toMatchObject({ status: 200, body: { name: 'alice' } });

				const listed = await runCli(['keys', 'list', 'alice', '--data-dir', dataDir]);
				expect(listed.code).toBe(0);
				expect(listed.stdout).not.toMatch(KEY);
				expect(listed.stdout).toMatch(new RegExp(`^${keyId}\\s+ci runner\\s+\\S+\\s+active$`, 'm'));

				const revoked = await runCli(['keys', 'revoke', keyId, '--data-dir', dataDir]);
				expect(revoked).toMatchObject({ code: 0, stdout: `Revoked API key ${keyId}.\n` });
				expect((await me(served, key)).status).toBe(401);
				expect((await runCli(['keys', 'list', 'alice', '--data-dir', dataDir])).stdout).toMatch(
					new RegExp(`^${keyId}\\s+ci runner\\s+\\S+\\s+revoked \\S+$`, 'm'),
				);

				const again = await runCli(['keys', 'revoke', keyId, '--data-dir', dataDir]);
				expect(again.code).not.toBe(0);
				expect(again.stderr).toMatch(/already revoked/);
				const unknown = await runCli(['keys', 'revoke', 'no-such-key', '--data-dir', dataDir]);
				expect(unknown.code).not.toBe(0);
				expect(unknown.stderr).toMatch(/no API key with id "no-such-key"/);
				const nobody = await runCli(['keys', 'create', 'nobody', '--data-dir', dataDir]);
				expect(nobody.code).not.toBe(0);
				expect(nobody.stderr).toMatch(/no account "nobody"/);
			} finally {
				served.child.kill('SIGTERM');
				await served.exited;
			}
		});

		it('adds credits, and refuses amounts that are not whole numbers above 0', async () => {
			await createAccount('alice', '--credits', '5');
			const added = await runCli(['credits', 'add', 'alice', '10', '--data-dir', dataDir]);
			expect(added).toMatchObject({ code: 0, stdout: 'Account "alice" now has 15 outgoing-message credits.\n' });
			for (const amount of ['abc', '0', '-1', '2.5', '1e3']) {
				const refused = await runCli(['credits', 'add', 'alice', amount, '--data-dir', dataDir]);
				expect(refused.code).not.toBe(0);
				expect(refused.stderr).toContain(`credits must be a whole number >= 1, got "${amount}"`);
			}
			expect((await runCli(['accounts', 'list', '--data-dir', dataDir])).stdout).toMatch(/\balice\s+15\b/);
		});
	});

	describe('domains (admin CLI)', () => {
		let server: TestMailroom;
		let dataDir: string;
		let ann: { id: string; key: string };
		beforeEach(async () => {
			dataDir = tempDataDir();
			// A running server on the same database: the CLI's changes apply to it at once.
			server = await startTestMailroom({ dataDir, domains: ['example.test'] });
			ann = server.createAccount('ann');
			server.createAccount('bob');
		});
		afterEach(() => server.stop());
		/** `mailroom <args> --data-dir <the server's>`. */
		const mailroom = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);

		it('add gives a domain to an account: the server accepts its mail, private to that account', async () => {
			await expect(sendMail(server, { to: 'x@cli.test' })).rejects.toThrow();
			const added = await mailroom('domains', 'add', 'ann', 'CLI.test');
			expect(added).toMatchObject({ code: 0, stdout: `Domain cli.test belongs to account "ann" (id ${ann.id}).\n` });
			await sendMail(server, { to: 'x@cli.test' });
			expect((await server.api<MessageRecord[]>(`/api/addresses/${enc('x@cli.test')}/messages`, { key: ann.key })).body).toHaveLength(1);
			expectError(await server.api(`/api/addresses/${enc('x@cli.test')}/messages`), 401);
			expect((await server.api<DomainRecord[]>('/api/domains', { key: ann.key })).body.map((d) => d._id)).toEqual(['cli.test']);
		});

		it('add is a no-op for the same owner and refused for another account, an unknown account or a bad name', async () => {
			await mailroom('domains', 'add', 'ann', 'owned.test');
			expect((await mailroom('domains', 'add', 'ann', 'owned.test')).code).toBe(0);
			expect(await mailroom('domains', 'add', 'bob', 'owned.test')).toMatchObject({
				code: 2,
				stderr: 'mailroom: owned.test is owned by another account\n',
			});
			expect(await mailroom('domains', 'add', 'nobody', 'free.test')).toMatchObject({
				code: 2,
				stderr: expect.stringMatching(/no account "nobody"/),
			});
			expect(await mailroom('domains', 'add', 'ann', 'bad_name!')).toMatchObject({
				code: 2,
				stderr: expect.stringMatching(/not a valid domain name/),
			});
			expect(server.domains.get('owned.test')!.owner).toBe(ann.id);
			expect(server.domains.get('free.test')).toBeUndefined();
		});

		it('list shows every domain with its owner and catch-all address', async () => {
			await mailroom('domains', 'add', 'ann', 'CLI.test');
			await mailroom('domains', 'add', 'ann', 'owned.test');
			await mailroom('domains', 'add', 'bob', 'bob.test');
			server.addresses.setCatchAll('owned.test', 'all@owned.test', ann.id);
			const { code, stdout } = await mailroom('domains', 'list');
			expect(code).toBe(0);
			const lines = stdout.trimEnd().split('\n');
			expect(lines[0]).toMatch(/^DOMAIN\s+OWNER\s+CATCH-ALL\s+CREATED$/);
			expect(lines.slice(1).map((line) => line.split(/\s+/).slice(0, 3))).toEqual([
				['bob.test', 'bob', expect.stringMatching(/^\d{4}-/)],
				['cli.test', 'ann', expect.stringMatching(/^\d{4}-/)],
				['owned.test', 'ann', 'all@owned.test'],
			]);
		});

		it('remove makes the mail public again; an unowned domain is an error', async () => {
			await mailroom('domains', 'add', 'ann', 'cli.test');
			await sendMail(server, { to: 'x@cli.test' });
			expect(await mailroom('domains', 'remove', 'cli.test')).toMatchObject({ code: 0, stdout: 'Removed domain cli.test.\n' });
			expect((await server.api<MessageRecord[]>(`/api/addresses/${enc('x@cli.test')}/messages`)).body).toHaveLength(1);
			expect(await mailroom('domains', 'remove', 'cli.test')).toMatchObject({
				code: 2,
				stderr: expect.stringMatching(/no account owns the domain "cli.test"/),
			});
			await expect(sendMail(server, { to: 'y@cli.test' })).rejects.toThrow();
		});
	});

	describe('bad flags and settings', () => {
		it.each([
			[['serve', '--smtp-port', 'abc'], /SMTP port must be a port number 0-65535, got "abc"/],
			[['serve', '--http-port', '70000'], /HTTP port must be a port number 0-65535, got "70000"/],
			[['serve', '--bogus'], /unknown option '--bogus'/],
			[['serve', '--log-level', 'loud'], /log level must be one of .*, got "loud"/],
			[['serve', '--max-message-size', '10TB'], /size must look like 25MB, 512KB or 1048576, got "10TB"/],
			[['serve', '--parse-workers', '0'], /parse workers must be a positive integer, got "0"/],
			[['serve', '--tls-cert', 'cert.pem'], /--tls-cert and --tls-key must be given together/],
			[['frobnicate'], /unknown command 'frobnicate'/],
		])('mailroom %j gives a clear message and a non-zero exit', async (args, message) => {
			const result = await runCli([...args, '--data-dir', join(newDataDir(), 'unused')]);
			expect(result.code).not.toBe(0);
			expect(result.stderr).toMatch(/^mailroom: /);
			expect(result.stderr).toMatch(message);
			expect(result.stderr).not.toMatch(/\n\s+at /);
			expect(result.stdout).toBe('');
		});

		it('checks settings given as MAILROOM_* environment variables too', async () => {
			const result = await runCli(['serve'], { MAILROOM_SMTP_PORT: 'twenty-five', MAILROOM_DATA_DIR: newDataDir() });
			expect(result.code).not.toBe(0);
			expect(result.stderr).toMatch(/SMTP port must be a port number 0-65535, got "twenty-five"/);
		});

		it('says so clearly when a port is taken', async () => {
			const dataDir = newDataDir();
			const served = await serve(dataDir);
			try {
				const result = await runCli([
					'serve',
					'--data-dir',
					newDataDir(),
					'--smtp-port',
					String(served.smtpPort),
					'--http-port',
					'0',
					'--parse-workers',
					'1',
				]);
				expect(result.code).not.toBe(0);
				expect(result.stderr).toMatch(/EADDRINUSE/);
				expect(result.stderr).not.toMatch(/\n\s+at /);
			} finally {
				served.child.kill('SIGTERM');
				await served.exited;
			}
		});
	});

	describe('unusable data folders', () => {
		let file: string;
		beforeAll(() => {
			file = join(newDataDir(), 'regular-file');
			writeFileSync(file, 'not a folder');
		});

		it.each([
			['a path under a regular file', () => join(file, 'data'), /data folder .* is not usable/],
			['a regular file', () => file, /data folder .* is not usable/],
			[
				'a folder whose database is not SQLite',
				() => {
					const dir = join(newDataDir(), 'corrupt');
					mkdirSync(dir);
					writeFileSync(join(dir, 'mailroom.sqlite'), 'this is not a database, just some text that is long enough '.repeat(100));
					return dir;
				},
				/cannot open the database in .*: file is not a database/,
			],
		])('refuses %s with a clear message and a non-zero exit', async (_label, dataDir, message) => {
			const dir = dataDir();
			for (const args of [
				['accounts', 'list'],
				['serve', '--smtp-port', '0', '--http-port', '0'],
			]) {
				const result = await runCli([...args, '--data-dir', dir]);
				expect(result.code).not.toBe(0);
				expect(result.stderr).toMatch(message);
				expect(result.stderr).not.toMatch(/\n\s+at /);
			}
		});
	});

	describe('serve', () => {
		it('prints the admin key on the first start of an empty data folder, and never again', async () => {
			const dataDir = newDataDir();
			const first = await serve(dataDir);
			let key: string;
			try {
				expect(first.output()).toMatch(
					/Created the admin account "admin" on this new database\.\nAPI key \(id \S+\), shown only this once:\n {2}mr_\S+\n/,
				);
				expect(first.output()).toMatch(/Make more with: mailroom accounts create <name> {2}and {2}mailroom keys create <account>/);
				key = keyIn(first.output());
				expect(await me(first, key)).toMatchObject({ status: 200, body: { name: 'admin', admin: true } });
			} finally {
				first.child.kill('SIGTERM');
				expect(await first.exited).toEqual({ code: 0, signal: null });
			}
			const second = await serve(dataDir);
			try {
				expect(second.output()).not.toMatch(KEY);
				expect(second.output()).not.toContain('Created the admin account');
				expect((await me(second, key)).status).toBe(200);
			} finally {
				second.child.kill('SIGTERM');
				await second.exited;
			}
		});

		it('keeps the admin key for the next start when the first start fails (a port in use): nothing is created before the server listens', async () => {
			const dataDir = newDataDir();
			const taken = await serve(newDataDir());
			try {
				const failed = await runCli([
					'serve',
					'--data-dir',
					dataDir,
					'--smtp-port',
					String(taken.smtpPort),
					'--http-port',
					'0',
					'--parse-workers',
					'1',
				]);
				expect(failed.code).not.toBe(0);
				expect(failed.stdout).not.toMatch(KEY);
			} finally {
				taken.child.kill('SIGTERM');
				await taken.exited;
			}
			const next = await serve(dataDir);
			try {
				expect(next.output()).toContain('Created the admin account "admin" on this new database.');
				expect(await me(next, keyIn(next.output()))).toMatchObject({ status: 200, body: { name: 'admin', admin: true } });
			} finally {
				next.child.kill('SIGTERM');
				await next.exited;
			}
		});

		it('stops with the server when npm start is stopped: SIGTERM to npm reaches the server, which leaves no orphan', async () => {
			const dataDir = newDataDir();
			// --ignore-scripts skips prestart (the build, done before the tests) but still runs start itself.
			const npm = spawn(
				'npm',
				[
					'start',
					'--ignore-scripts',
					'--silent',
					'--',
					'--data-dir',
					dataDir,
					'--smtp-port',
					'0',
					'--http-port',
					'0',
					'--parse-workers',
					'1',
				],
				{
					cwd: join(__dirname, '../..'),
					env: cleanEnv(),
				},
			);
			let output = '';
			npm.stdout.on('data', (chunk) => (output += chunk));
			const exited = new Promise<number | null>((done) => npm.on('exit', (code) => done(code)));
			await waitFor(() => output.includes('"Mailroom is running"'), 'the server started by npm start');
			const { smtp } = JSON.parse(output.split('\n').find((line) => line.includes('"Mailroom is running"'))!) as { smtp: string };
			npm.kill('SIGTERM');
			await exited;
			await untilRefused(Number(smtp.split(':').pop()));
			await waitFor(() => output.includes('Mailroom stopped'), 'the server to say it stopped');
		});

		it.each(['SIGTERM', 'SIGINT'] as const)('exits 0 on %s and leaves a clean, checkpointed database', async (signal) => {
			const dataDir = newDataDir();
			const served = await serve(dataDir);
			const transport = nodemailer.createTransport({ host: '127.0.0.1', port: served.smtpPort, ignoreTLS: true });
			await transport.sendMail({ from: 'a@sender.test', to: 'kept@example.test', subject: `before ${signal}`, text: 'kept' });
			transport.close();
			served.child.kill(signal);
			expect(await served.exited).toEqual({ code: 0, signal: null });
			expect(served.output()).toContain('Mailroom stopped');
			const wal = join(dataDir, 'mailroom.sqlite-wal');
			expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
			expect(inspectDatabase(dataDir)).toEqual({ integrity: 'ok', messages: [{ subject: `before ${signal}` }] });
		});

		it('lets an SMTP transaction in flight at SIGTERM finish with 250 and stores its message', async () => {
			const dataDir = newDataDir();
			const served = await serve(dataDir);
			const socket = new Socket();
			const replies: string[] = [];
			let waiting: ((line: string) => void) | undefined;
			let buffered = '';
			socket.on('data', (chunk) => {
				buffered += chunk.toString();
				const lines = buffered.split('\r\n');
				buffered = lines.pop()!;
				for (const line of lines) {
					replies.push(line);
					if (/^\d{3} /.test(line)) waiting?.(line);
				}
			});
			const closed = new Promise<void>((done) => socket.on('close', () => done()));
			const reply = () => new Promise<string>((done) => (waiting = done));
			const say = async (text: string) => {
				const next = reply();
				socket.write(text);
				return next;
			};
			const greeting = reply();
			socket.connect(served.smtpPort, '127.0.0.1');
			expect(await greeting).toMatch(/^220 /);
			expect(await say('EHLO client.test\r\n')).toMatch(/^250 /);
			expect(await say('MAIL FROM:<late@sender.test>\r\n')).toMatch(/^250 /);
			expect(await say('RCPT TO:<inflight@example.test>\r\n')).toMatch(/^250 /);
			expect(await say('DATA\r\n')).toMatch(/^354 /);
			socket.write('From: late@sender.test\r\nTo: inflight@example.test\r\nSubject: in flight\r\n\r\nfirst half of the body\r\n');

			served.child.kill('SIGTERM');
			await untilRefused(served.smtpPort); // shutdown has begun: no new connections

			const accepted = reply();
			socket.write('second half of the body\r\n.\r\n');
			expect(await accepted).toMatch(/^250 /);
			const goodbye = reply();
			await Promise.race([goodbye, closed]);
			expect(replies.slice(replies.findIndex((line) => /^250 .*stored/i.test(line)) + 1).every((line) => /^421 /.test(line))).toBe(true);
			await closed;
			expect(await served.exited).toEqual({ code: 0, signal: null });
			expect(inspectDatabase(dataDir)).toEqual({ integrity: 'ok', messages: [{ subject: 'in flight' }] });
		});
	});
});
