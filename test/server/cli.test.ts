import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type Database from 'better-sqlite3';
import nodemailer from 'nodemailer';
import { SETTINGS, resolveConfig } from 'mailroom-server/dist/config/settings';
import type { Me } from 'mailroom-server/dist/schemas/account';
import type { DomainRecord } from 'mailroom-server/dist/schemas/domain';
import type { ErrorBody } from 'mailroom-server/dist/schemas/error';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { WebhookAttempt, WebhookDelivery } from 'mailroom-server/dist/schemas/webhook';
import { dataDirs, startTestMailroom, tempDataDir, type TestMailroom } from '../helpers/mailroom';
import {
	asFlags,
	cleanEnv,
	freeWhere,
	KEY,
	runCli,
	runningAt,
	serve,
	ServeProcess,
	whereSettings,
	withDatabase,
	type Where,
} from '../helpers/mailroom-cli';
import { enc, expectError, sendMail } from '../helpers/messages';
import { accepts, freePort, untilRefused } from '../helpers/ports';
import { sevenBitMail } from '../helpers/large-messages';
import { mimeMessage } from '../helpers/raw-messages';
import type { RawSmtp } from '../helpers/raw-smtp';
import { startTestRelay, type TestRelay } from '../helpers/smtp-relay';
import { selfSignedCertificate } from '../helpers/tls';
import { WebhookReceiver, waitFor } from '../helpers/webhook-receiver';
import { startPostgres } from '../helpers/postgres';
import { queryColumn } from '../helpers/database';
import { moved, parseMetrics } from '../helpers/metrics';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server';

/** Data folders for the whole file, removed after it. */
const newDataDir = dataDirs();

const keyIn = (text: string) => KEY.exec(text)![0];
const keyIdIn = (text: string) => /API key \(id (\S+)\)/.exec(text)![1];

/** A port on 127.0.0.1 that a plain TCP listener holds (what holds it makes no difference to a server that wants it). */
async function takenPort(): Promise<{ port: number; release: () => Promise<void> }> {
	const listener = createTcpServer();
	await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
	return {
		port: (listener.address() as AddressInfo).port,
		release: () => new Promise<void>((resolve) => listener.close(() => resolve())),
	};
}

/** `mailroom serve` on `dataDir` with one of its ports (by default the SMTP port) where something listens already: it cannot start. */
const serveOnTakenPort = (dataDir: string, taken: { port: number }, portFlag = 'smtp-port') =>
	runCli([
		'serve',
		...asFlags({ 'data-dir': dataDir, 'smtp-port': '0', 'http-port': '0', 'parse-workers': '1', [portFlag]: String(taken.port) }),
	]);

/** Opens the database the way an operator would after a stop, and checks it. */
function inspectDatabase(dataDir: string): { integrity: string; messages: { subject: string }[] } {
	return withDatabase(dataDir, (db) => ({
		integrity: db.pragma('integrity_check', { simple: true }) as string,
		messages: db.prepare('SELECT subject FROM messages ORDER BY seq').all() as { subject: string }[],
	}));
}

describe('mailroom CLI', () => {
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
			const refusals = [
				[['accounts', 'create', 'alice'], /already exists/],
				[['accounts', 'create', 'has space'], /account name "has space" must be/],
				[['accounts', 'create', 'bob', '--credits', 'lots'], /--credits must be a whole number >= 0, got "lots"/],
				[['accounts', 'create'], /missing required argument 'name'/],
			] as const;
			// Each is its own process, all at once: none of them writes.
			const results = await Promise.all(refusals.map(([args]) => runCli([...args, '--data-dir', dataDir])));
			for (const [i, [, message]] of refusals.entries()) {
				const result = results[i];
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
				expect(await served.api<Me>('/api/me', { key })).toMatchObject({ status: 200, body: { name: 'alice' } });

				const listed = await runCli(['keys', 'list', 'alice', '--data-dir', dataDir]);
				expect(listed.code).toBe(0);
				expect(listed.stdout).not.toMatch(KEY);
				expect(listed.stdout).toMatch(new RegExp(`^${keyId}\\s+ci runner\\s+\\S+\\s+active$`, 'm'));

				const revoked = await runCli(['keys', 'revoke', keyId, '--data-dir', dataDir]);
				expect(revoked).toMatchObject({ code: 0, stdout: `Revoked API key ${keyId}.\n` });
				expect((await served.api('/api/me', { key })).status).toBe(401);
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
				await served.stop();
			}
		}, 60_000); // a server and eight CLI processes, one after another
		it('adds credits, and refuses amounts that are not whole numbers above 0', async () => {
			await createAccount('alice', '--credits', '5');
			const added = await runCli(['credits', 'add', 'alice', '10', '--data-dir', dataDir]);
			expect(added).toMatchObject({ code: 0, stdout: 'Account "alice" now has 15 outgoing-message credits.\n' });
			const amounts = ['abc', '0', '-1', '2.5', '1e3'];
			const refusals = await Promise.all(amounts.map((amount) => runCli(['credits', 'add', 'alice', amount, '--data-dir', dataDir])));
			for (const [i, amount] of amounts.entries()) {
				const refused = refusals[i];
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
			ann = await server.createAccount('ann');
			await server.createAccount('bob');
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
			expect((await server.domains.get('owned.test'))!.owner).toBe(ann.id);
			expect(await server.domains.get('free.test')).toBeUndefined();
		});

		it('list shows every domain with its owner and catch-all address', async () => {
			await mailroom('domains', 'add', 'ann', 'CLI.test');
			await mailroom('domains', 'add', 'ann', 'owned.test');
			await mailroom('domains', 'add', 'bob', 'bob.test');
			await server.addresses.setCatchAll('owned.test', 'all@owned.test', ann.id);
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
			[['serve', '--max-message-size', '10TB'], /--max-message-size: size must look like 25MB, 512KB or 1048576, got "10TB"/],
			[['serve', '--retention-max-age', '30x'], /--retention-max-age: durations must look like 30s,5m,1h,1d, got "30x"/],
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
			const [result, size] = await Promise.all([
				runCli(['serve'], { MAILROOM_SMTP_PORT: 'twenty-five', MAILROOM_DATA_DIR: newDataDir() }),
				runCli(['serve'], { MAILROOM_MAX_MESSAGE_SIZE: 'lots', MAILROOM_DATA_DIR: newDataDir() }),
			]);
			expect(result.code).not.toBe(0);
			expect(result.stderr).toMatch(/MAILROOM_SMTP_PORT: SMTP port must be a port number 0-65535, got "twenty-five"/);
			expect(size.stderr).toMatch(/^mailroom: MAILROOM_MAX_MESSAGE_SIZE: size must look like 25MB, 512KB or 1048576, got "lots"/);
		});

		it('names the port in use, its listener and its setting: the SMTP port given as a flag, the metrics port as a variable', async () => {
			const taken = await takenPort();
			try {
				// Two servers that cannot start, at once: each wants the port taken, one for SMTP, the other for metrics.
				const [smtp, metrics] = await Promise.all([
					serveOnTakenPort(newDataDir(), taken),
					runCli(['serve', ...asFlags({ 'data-dir': newDataDir(), 'smtp-port': '0', 'http-port': '0', 'parse-workers': '1' })], {
						MAILROOM_METRICS_PORT: String(taken.port),
					}),
				]);
				expect(smtp.code).toBe(2);
				expect(smtp.stderr).toBe(
					`mailroom: The SMTP port ${taken.port} on 127.0.0.1 is already in use (--smtp-port / MAILROOM_SMTP_PORT): ` +
						'stop what holds it or choose another port\n',
				);
				expect(metrics.code).toBe(2);
				expect(metrics.stderr).toBe(
					`mailroom: The metrics port ${taken.port} on 127.0.0.1 is already in use (--metrics-port / MAILROOM_METRICS_PORT): ` +
						'stop what holds it or choose another port\n',
				);
			} finally {
				await taken.release();
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
			const results = await Promise.all(
				[
					['accounts', 'list'],
					['serve', '--smtp-port', '0', '--http-port', '0'],
				].map((args) => runCli([...args, '--data-dir', dir])),
			);
			for (const result of results) {
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
				key = await first.key();
				expect(first.output).toMatch(
					/Created the admin account "admin" on this new database\.\nAPI key \(id \S+\), shown only this once:\n {2}mr_\S+\n/,
				);
				expect(first.output).toMatch(/Make more with: mailroom accounts create <name> {2}and {2}mailroom keys create <account>/);
				expect(await first.api<Me>('/api/me', { key })).toMatchObject({ status: 200, body: { name: 'admin', admin: true } });
			} finally {
				first.child.kill('SIGTERM');
				expect(await first.exited).toEqual({ code: 0, signal: null });
			}
			const second = await serve(dataDir);
			try {
				expect((await second.api('/api/me', { key })).status).toBe(200);
				expect(second.output).not.toMatch(KEY);
				expect(second.output).not.toContain('Created the admin account');
			} finally {
				await second.stop();
			}
		});

		it('gives the admin account the key of MAILROOM_ADMIN_KEY_FILE on the first start, never shows it, and refuses a bad one', async () => {
			const dataDir = newDataDir();
			const keyFile = join(dataDir, 'admin-key');
			const given = 'mr_given_by_the_deployment_0123456789abcdef';
			writeFileSync(keyFile, `${given}\n`); // as `echo` writes it
			const where = await freeWhere(dataDir);
			const first = await ServeProcess.start(where, asFlags(whereSettings(where)), { MAILROOM_ADMIN_KEY_FILE: keyFile });
			try {
				await waitFor(() => first.output.includes('Created the admin account'), 'the first start to say it made the admin');
				expect(first.output).toMatch(/Its API key \(id \S+\) is the one given by --admin-key or --admin-key-file\./);
				expect(first.output).not.toContain(given);
				expect(first.output).not.toMatch(KEY);
				expect(await first.api<Me>('/api/me', { key: given })).toMatchObject({ status: 200, body: { name: 'admin', admin: true } });
			} finally {
				await first.stop();
			}
			// Once accounts exist the setting changes nothing: the key stays, and another given one is no key.
			const other = 'mr_another_key_given_later_0123456789abcdef';
			const second = await ServeProcess.start(where, asFlags(whereSettings(where)), { MAILROOM_ADMIN_KEY: other });
			try {
				expect((await second.api('/api/me', { key: given })).status).toBe(200);
				expect((await second.api('/api/me', { key: other })).status).toBe(401);
			} finally {
				await second.stop();
			}
			writeFileSync(keyFile, 'short\n');
			const refused = await runCli(['serve', ...asFlags(whereSettings(where))], { MAILROOM_ADMIN_KEY_FILE: keyFile });
			expect(refused.code).toBe(2);
			expect(refused.stderr).toBe(
				`mailroom: the admin key in ${keyFile} must be 32-256 visible ASCII characters (no spaces), e.g. made with: echo mr_$(openssl rand -hex 24)\n`,
			);
		});

		it('keeps the admin key for the next start when the first start fails (its HTTP port in use): nothing is created before the server listens', async () => {
			const dataDir = newDataDir();
			const taken = await takenPort();
			try {
				const failed = await serveOnTakenPort(dataDir, taken, 'http-port');
				expect(failed.code).toBe(2);
				expect(failed.stderr).toBe(
					`mailroom: The HTTP port ${taken.port} on 127.0.0.1 is already in use (--http-port / MAILROOM_HTTP_PORT): ` +
						'stop what holds it or choose another port\n',
				);
				expect(failed.stdout).not.toMatch(KEY);
			} finally {
				await taken.release();
			}
			const next = await serve(dataDir);
			try {
				const key = await next.key();
				expect(next.output).toContain('Created the admin account "admin" on this new database.');
				expect(await next.api<Me>('/api/me', { key })).toMatchObject({ status: 200, body: { name: 'admin', admin: true } });
			} finally {
				await next.stop();
			}
		});

		it('stops with the server when npm start is stopped: SIGTERM to npm reaches the server, which leaves no orphan', async () => {
			const where = await freeWhere(newDataDir());
			// --ignore-scripts skips prestart (the build, done before the tests) but still runs start itself.
			const npm = spawn('npm', ['start', '--ignore-scripts', '--silent', '--', ...asFlags(whereSettings(where))], {
				cwd: join(__dirname, '../..'),
				env: cleanEnv(),
			});
			let output = '';
			npm.stdout.on('data', (chunk) => (output += chunk));
			const exited = new Promise<number | null>((done) => npm.on('exit', (code) => done(code)));
			await waitFor(() => runningAt(output), 'the server started by npm start');
			npm.kill('SIGTERM');
			await exited;
			await untilRefused(where.smtpPort);
			await waitFor(() => output.includes('Mailroom stopped'), 'the server to say it stopped');
		});

		it.each(['SIGTERM', 'SIGINT'] as const)('exits 0 on %s and leaves a clean, checkpointed database', async (signal) => {
			const dataDir = newDataDir();
			const served = await serve(dataDir);
			await served.send({ to: 'kept@example.test', subject: `before ${signal}`, text: 'kept' });
			served.child.kill(signal);
			expect(await served.exited).toEqual({ code: 0, signal: null });
			expect(served.output).toContain('Mailroom stopped');
			const wal = join(dataDir, 'mailroom.sqlite-wal');
			expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
			expect(inspectDatabase(dataDir)).toEqual({ integrity: 'ok', messages: [{ subject: `before ${signal}` }] });
		});

		it('lets an SMTP transaction in flight at SIGTERM finish with 250 and stores its message, a second signal meanwhile notwithstanding', async () => {
			const dataDir = newDataDir();
			const served = await serve(dataDir);
			const client = await inFlight(served);

			served.child.kill('SIGTERM');
			await untilRefused(served.where.smtpPort); // shutdown has begun: no new connections
			// npm start passes a Ctrl-C on to the server, which so gets a second signal while it stops.
			served.child.kill('SIGINT');
			await waitFor(() => served.output.includes('Shutdown is under way'), 'the server to say it goes on stopping');

			client.write('second half of the body\r\n.\r\n');
			expect(await client.reply()).toMatch(/^250 .*stored/i);
			// Whatever the server says after that, until it closes the connection, is a 421.
			expect((await client.untilClosed()).every((line) => /^421 /.test(line))).toBe(true);
			expect(await served.exited).toEqual({ code: 0, signal: null });
			expect(served.output).toContain('Mailroom stopped');
			// A clean close checkpoints the write-ahead log into the database and removes it with its index.
			expect(readdirSync(dataDir).sort()).toEqual(['mailroom.sqlite', 'spool']);
			expect(inspectDatabase(dataDir)).toEqual({ integrity: 'ok', messages: [{ subject: 'in flight' }] });
		});

		it('exits at a third signal while it stops, saying so, with 128 + the signal number', async () => {
			const served = await serve(newDataDir());
			const client = await inFlight(served); // holds the stop up, so each signal finds it still stopping

			served.child.kill('SIGINT');
			await untilRefused(served.where.smtpPort);
			served.child.kill('SIGINT');
			await waitFor(() => served.output.includes('Shutdown is under way'), 'the server to say it goes on stopping');
			served.child.kill('SIGINT');
			expect(await served.exited).toEqual({ code: 130, signal: null });
			expect(served.output).toContain('Forced exit: the shutdown was cut short');
			expect(served.output).not.toContain('Mailroom stopped');
			client.close();
		});
	});
});

/** An SMTP transaction into `served` left in the middle of its DATA: the server's stop waits for it. */
async function inFlight(served: ServeProcess): Promise<RawSmtp> {
	const { client, greeting } = await served.smtp();
	expect(greeting).toMatch(/^220 /);
	expect(await client.command('EHLO client.test')).toMatch(/^250 /m);
	expect(await client.command('MAIL FROM:<late@sender.test>')).toMatch(/^250 /);
	expect(await client.command('RCPT TO:<inflight@example.test>')).toMatch(/^250 /);
	expect(await client.command('DATA')).toMatch(/^354 /);
	client.write('From: late@sender.test\r\nTo: inflight@example.test\r\nSubject: in flight\r\n\r\nfirst half of the body\r\n');
	return client;
}

/** A data folder whose server has run once (its admin key is returned), ready to be changed before the next start. */
async function usedDataDir(use: (server: ServeProcess, key: string) => Promise<void>): Promise<{ dataDir: string; key: string }> {
	const dataDir = newDataDir();
	const server = await serve(dataDir);
	const key = await server.key();
	try {
		await use(server, key);
	} finally {
		await server.stop();
	}
	return { dataDir, key };
}

/** Sends through the API as the admin (its credits added with the CLI, its address reserved): resolves with the answer. */
async function sendAs(server: ServeProcess, key: string, to: string): Promise<{ status: number; body: { status: string } }> {
	expect((await runCli(['credits', 'add', 'admin', '5', '--data-dir', server.where.dataDir])).code).toBe(0);
	await server.api('/api/addresses/me%40flags.test', { key, method: 'POST' });
	return server.api('/api/outgoing-messages', { key, method: 'POST', body: { from: 'me@flags.test', to, subject: 'out', text: 'out' } });
}

/** Gives an address of the admin a webhook; resolves with the message's id and the account's key once mail is sent to it. */
async function mailWithWebhook(server: ServeProcess, url: string, address = 'hook@flags.test'): Promise<{ key: string; id: string }> {
	const key = await server.key();
	await server.api(`/api/addresses/${enc(address)}`, { key, method: 'POST', body: { webhook: url } });
	const reply = await server.send({ to: address });
	return { key, id: /stored as (\S+)/.exec(reply)![1] };
}

const deliveryOf = (server: ServeProcess, key: string, address: string, id: string) =>
	server.api<WebhookDelivery>(`/api/addresses/${enc(address)}/messages/${id}/webhook-status`, { key }).then(({ body }) => body);

/** The server's replies to RCPT TO for each of `recipients`, in one transaction. */
async function rcptReplies(server: ServeProcess, recipients: string[]): Promise<string[]> {
	const { client } = await server.smtp();
	await client.command('EHLO client.test');
	await client.command('MAIL FROM:<a@sender.test>');
	const replies: string[] = [];
	for (const recipient of recipients) replies.push(await client.command(`RCPT TO:<${recipient}>`));
	client.close();
	return replies;
}

/** 100,000 links in 5 MB of HTML: far longer to parse than 50 ms. */
function slowMessage(to: string): Buffer {
	const html = `<p>${Array.from({ length: 100_000 }, (_, i) => `<a href="https://x${i}.slow.test/">link ${i}</a>`).join('</p><p>')}</p>`;
	return mimeMessage(to, ['Subject: slow', 'Content-Type: text/html'], `${html}\r\n`);
}

/** ServeProcess.start returns once the API accepts; the metrics listener opens just after it. */
const untilMetricsListen = (host: string, port: number) => waitFor(() => accepts(host, port), `the metrics listener on ${host}:${port}`);

/** What a case needs before the server starts, passed on to its check. */
interface Fixture {
	/** The admin key of a data folder prepared by an earlier run (see FlagCase.earlier). */
	key?: string;
	relay?: TestRelay;
	receiver?: WebhookReceiver;
	files?: Record<string, string>;
	/** A free port for a listener the case asks for. */
	port?: number;
	/** A DNS server of the case's (sender verification asks it). */
	dns?: TestDnsServer;
	/** A receiver's count of the requests it answered, and of the most it answered at once. */
	concurrency?: { inFlight: number; most: number; answered: number };
	close?: () => Promise<void>;
}

/** What a case's settings are made of: the fixture's port, relay and files, and where the server is. */
type SettingSources = Pick<Fixture, 'port' | 'files'> & { relay?: Pick<TestRelay, 'url'>; dns?: Pick<TestDnsServer, 'address'> };

interface FlagCase {
	/**
	 * The settings the case gives (flag names without the dashes): as flags to the server of its group, and resolved as
	 * their variables.
	 */
	settings: Record<string, string | ((sources: SettingSources, where: Where) => string)>;
	/** Flags the effect also needs (given to the server of its group). */
	also?: (sources: SettingSources) => string[];
	prepare?: () => Promise<Fixture>;
	/**
	 * What the server must find in its data folder when it starts: made by a run of `mailroom serve` on the folder before
	 * (one run for the whole group), then changed in its database. The folder's admin key goes to the fixture.
	 */
	earlier?: { run: (server: ServeProcess, fixture: Fixture) => Promise<void>; change?: (db: Database.Database) => void };
	/** Shows the setting's effect on the running server: it would not hold with the default. */
	check: (server: ServeProcess, fixture: Fixture) => Promise<void>;
}

const loopbackTwo = '127.0.0.2';
/** An admin key as a deployment gives it (--admin-key), for the first start of an empty database. */
const GIVEN_ADMIN_KEY = 'mr_given_in_the_settings_0123456789abcdef';

const CASES: Record<string, FlagCase> = {
	'smtp-host': {
		settings: { 'smtp-host': loopbackTwo },
		check: async ({ where }) => {
			expect(await accepts(loopbackTwo, where.smtpPort)).toBe(true);
			expect(await accepts('127.0.0.1', where.smtpPort)).toBe(false);
		},
	},
	'smtp-port': {
		settings: { 'smtp-port': (_sources, where) => String(where.smtpPort) },
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
		settings: { 'http-port': (_sources, where) => String(where.httpPort) },
		check: async (server) => expect((await server.api('/openapi.json')).status).toBe(200),
	},
	'metrics-port': {
		prepare: async () => ({ port: await freePort() }),
		settings: { 'metrics-port': ({ port }) => String(port) },
		check: async (server, { port }) => {
			await untilMetricsListen('127.0.0.1', port!);
			const scrape = async () => {
				const response = await fetch(`http://127.0.0.1:${port}/metrics`);
				expect(response.status).toBe(200);
				return parseMetrics(await response.text());
			};
			const before = await scrape();
			await server.send({ to: 'counted@flags.test' });
			// Counted: the other cases of the group may have sent mail before.
			expect(moved(before, await scrape(), 'mailroom_smtp_messages_accepted_total', { kind: 'received' })).toBe(1);
		},
	},
	'metrics-host': {
		prepare: async () => ({ port: await freePort() }),
		also: ({ port }) => ['--metrics-port', String(port)],
		settings: { 'metrics-host': loopbackTwo },
		check: async (_server, { port }) => {
			await untilMetricsListen(loopbackTwo, port!);
			expect((await fetch(`http://${loopbackTwo}:${port}/metrics`)).status).toBe(200);
			expect(await accepts('127.0.0.1', port!)).toBe(false);
		},
	},
	'public-url': {
		prepare: async () => {
			const receiver = new WebhookReceiver();
			await receiver.listen();
			return { receiver, close: () => receiver.close() };
		},
		settings: { 'public-url': 'https://mail.example.com/' },
		check: async (server, { receiver }) => {
			const key = await server.key();
			await server.api('/api/addresses/public%40flags.test', { key, method: 'POST', body: { webhook: `${receiver!.url}/hook` } });
			await server.send({ to: 'public@flags.test', attachments: [{ filename: 'a.txt', content: 'attached' }] });
			const request = await waitFor(() => receiver!.requests[0], 'the delivery');
			const [attachment] = (JSON.parse(request.body) as { attachments: { url: string }[] }).attachments;
			expect(attachment.url).toMatch(
				/^https:\/\/mail\.example\.com\/api\/addresses\/public%40flags\.test\/messages\/\S+\/attachments\/[0-9a-f]{32}$/,
			);
		},
	},
	'data-dir': {
		settings: { 'data-dir': (_sources, where) => where.dataDir },
		check: async (server) => {
			await server.send({ to: 'kept@flags.test', subject: 'in the data folder' });
			expect(server.query<{ subject: string }>('SELECT subject FROM messages WHERE inbox = ?', 'kept@flags.test')).toEqual([
				{ subject: 'in the data folder' },
			]);
		},
	},
	'admin-key': {
		settings: { 'admin-key': GIVEN_ADMIN_KEY },
		check: async (server) => {
			expect(await server.api<Me>('/api/me', { key: GIVEN_ADMIN_KEY })).toMatchObject({
				status: 200,
				body: { name: 'admin', admin: true },
			});
			expect(server.output).not.toMatch(KEY);
		},
	},
	'admin-key-file': {
		prepare: () => {
			const file = join(newDataDir(), 'admin-key');
			writeFileSync(file, `${GIVEN_ADMIN_KEY}-from-a-file\n`);
			return Promise.resolve({ files: { adminKey: file } });
		},
		settings: { 'admin-key-file': ({ files }) => files!.adminKey },
		check: async (server) => {
			const key = `${GIVEN_ADMIN_KEY}-from-a-file`;
			expect(await server.api<Me>('/api/me', { key })).toMatchObject({ status: 200, body: { name: 'admin', admin: true } });
			expect(server.output).not.toContain(key);
		},
	},
	domains: {
		settings: { domains: 'allowed.test' },
		check: async (server) => {
			const [other, allowed] = await rcptReplies(server, ['x@other.test', 'x@allowed.test']);
			expect(other).toMatch(/^550 /);
			expect(allowed).toMatch(/^250 /);
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
			expect(server.output).not.toMatch(/"level":/);
			expect(server.output).toContain('Created the admin account'); // printed, not logged
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
			const workers = (s: ServeProcess) => s.threads().filter((name) => name === 'WorkerThread').length;
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
			const { key } = await mailWithWebhook(server, `${receiver!.url}/hook`, 'timeout@flags.test');
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
			const { key, id } = await mailWithWebhook(server, `${receiver!.url}/hook`, 'retry@flags.test');
			const failed = await waitFor(async () => {
				const delivery = await deliveryOf(server, key, 'retry@flags.test', id);
				return delivery.status === 'failed' ? delivery : undefined;
			}, 'the delivery to fail after its two attempts');
			expect(failed.attempts).toBe(2);
		},
	},
	'return-path-domain': {
		settings: { 'return-path-domain': 'rp.flags.test' },
		// The server takes the return paths of its return path domain (bounces coming back), beside --domains; nothing else there.
		check: async (server) => {
			const replies = await rcptReplies(server, ['x@elsewhere.test', 'bounces+abcdefghijklmnopqrst@rp.flags.test', 'x@rp.flags.test']);
			expect(replies.map((reply) => reply.slice(0, 4))).toEqual(['550 ', '250 ', '550 ']);
		},
	},
	'test-domain': {
		settings: { 'test-domain': 'tests.flags.test' },
		// bounce@ answers with a bounce, which comes back to the return path and makes the recipient bounced.
		check: async (server) => {
			const key = await server.key();
			expect((await sendAs(server, key, 'bounce@tests.flags.test')).status).toBe(200);
			await waitFor(async () => {
				const { body } = await server.api<{ subject: string; status: string }[]>('/api/outgoing-messages', { key });
				return body.some((sent) => sent.status === 'bounced');
			}, 'the bounce of bounce@tests.flags.test');
		},
	},
	'webhook-allow-private': {
		settings: { 'webhook-allow-private': 'false' },
		check: async (server) => {
			// Off: even the admin account's webhook may not go to loopback, and setting one says so.
			const key = await server.key();
			const body = { webhook: 'http://127.0.0.1:9/hook' };
			const refused = await server.api<ErrorBody>(`/api/addresses/${enc('private@flags.test')}`, { key, method: 'POST', body });
			expect(refused).toMatchObject({ status: 400, body: { message: expect.stringMatching(/--webhook-allow-private is false/) } });
		},
	},
	'webhook-allow-hosts': {
		prepare: async () => {
			const receiver = new WebhookReceiver();
			await receiver.listen();
			return { receiver, close: () => receiver.close() };
		},
		settings: { 'webhook-allow-hosts': 'localhost' },
		check: async (server, { receiver }) => {
			// An account that is not an admin: its webhooks reach the listed host, and no other private one.
			const created = await runCli(['accounts', 'create', 'tenant', '--data-dir', server.where.dataDir]);
			const key = /mr_\S+/.exec(created.stdout)![0];
			const reserve = (address: string, webhook: string) =>
				server.api<ErrorBody>(`/api/addresses/${enc(address)}`, { key, method: 'POST', body: { webhook } });
			expect((await reserve('unlisted@flags.test', `${receiver!.url}/unlisted`)).status).toBe(400);
			expect((await reserve('listed@flags.test', `http://localhost:${receiver!.port}/listed`)).status).toBe(200);
			await server.send({ to: 'listed@flags.test' });
			await waitFor(() => receiver!.requests.find((request) => request.url === '/listed'), 'the delivery to the listed host');
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
				await server.api(`/api/addresses/${enc(address)}`, { key, method: 'POST', body: { webhook: `${files!.url}/hook` } });
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
			return { receiver, close: () => receiver.close() };
		},
		// A delivery made two days ago, as its records would say.
		earlier: {
			run: async (server, { receiver }) => {
				const { key, id } = await mailWithWebhook(server, `${receiver!.url}/hook`);
				await waitFor(async () => (await deliveryOf(server, key, 'hook@flags.test', id)).status === 'delivered', 'the delivery');
			},
			change: (db) => {
				const twoDaysAgo = Date.now() - 2 * 24 * 3600 * 1000;
				db.prepare('UPDATE webhook_attempts SET time = ? WHERE address = ?').run(twoDaysAgo, 'hook@flags.test');
				db.prepare('UPDATE webhook_deliveries SET updated = ? WHERE address = ?').run(twoDaysAgo, 'hook@flags.test');
			},
		},
		settings: { 'webhook-activity-days': '1' },
		check: async (server, { key }) => {
			// Pruned at the start: kept seven days by default.
			expect((await server.api<WebhookAttempt[]>('/api/webhook-activity', { key })).body).toEqual([]);
		},
	},
	'work-lease': {
		prepare: async () => {
			const receiver = new WebhookReceiver();
			// Holds the attempt open: the delivery stays leased to the node for as long.
			receiver.reply = () => ({ status: 200, delayMs: 5000 });
			await receiver.listen();
			return { receiver, close: () => receiver.close() };
		},
		settings: { 'work-lease': '3s' },
		check: async (server, { receiver }) => {
			await mailWithWebhook(server, `${receiver!.url}/hook`, 'leased@flags.test');
			const leased = await waitFor(
				() =>
					server.query<{ lease_until: number | null }>(
						'SELECT lease_until FROM webhook_deliveries WHERE address = ?',
						'leased@flags.test',
					)[0]?.lease_until,
				'the delivery to be leased',
			);
			// Held until at most 3 s from now: 60 s by default.
			expect(leased - Date.now()).toBeLessThanOrEqual(3000);
		},
	},
	'database-url': {
		prepare: async () => {
			const postgres = await startPostgres();
			return { files: { url: await postgres.newDatabase() }, close: () => postgres.stop() };
		},
		settings: { 'database-url': ({ files }) => files!.url },
		check: async (server, { files }) => {
			await server.send({ to: 'pg@flags.test', subject: 'in PostgreSQL' });
			expect((await server.inbox('pg@flags.test')).map((message) => message.subject)).toEqual(['in PostgreSQL']);
			// Stored in the database named, not in the data folder.
			expect(
				await queryColumn({ config: { dataDir: server.where.dataDir, databaseUrl: files!.url } }, 'SELECT subject FROM messages'),
			).toEqual(['in PostgreSQL']);
			expect(existsSync(join(server.where.dataDir, 'mailroom.sqlite'))).toBe(false);
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
			const [one, two] = await rcptReplies(server, ['one@flags.test', 'two@flags.test']);
			expect(one).toMatch(/^250 /);
			expect(two).toMatch(/^452 /);
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
	'smtp-data-timeout': {
		settings: { 'smtp-data-timeout': '1s' },
		check: async (server) => {
			const { client } = await server.smtp();
			await client.envelope('a@sender.test', ['slow@flags.test']);
			// A byte every 200 ms keeps the idle timeout away: only the DATA's own limit ends it (5 minutes by default).
			const trickling = setInterval(() => client.write('x'), 200);
			const started = Date.now();
			try {
				expect(await client.reply()).toBe('421 4.4.2 Message not received in full within 1 s, closing connection');
			} finally {
				clearInterval(trickling);
			}
			expect(Date.now() - started).toBeLessThan(5000);
			client.close();
		},
	},
	'smtp-session-timeout': {
		settings: { 'smtp-session-timeout': '2s' },
		check: async (server) => {
			const { client } = await server.smtp();
			const started = Date.now();
			// Busy all along: only the session's own limit ends it (30 minutes by default).
			let reply: string;
			while ((reply = await client.command('NOOP')).startsWith('250')) await new Promise((resolve) => setTimeout(resolve, 100));
			expect(reply).toBe('421 4.4.2 Connection open for 2 s, the most allowed, closing connection');
			expect(Date.now() - started).toBeLessThan(6000);
			client.close();
		},
	},
	'smtp-auth-without-tls': {
		// Not a loopback address: AUTH is offered without TLS only with the setting.
		also: () => ['--smtp-host', '0.0.0.0'],
		settings: { 'smtp-auth-without-tls': 'true' },
		check: async (server) => {
			const { client } = await server.smtp();
			expect(await client.command('EHLO client.test')).toMatch(/^250-AUTH PLAIN LOGIN$/m);
			expect(await client.command(`AUTH PLAIN ${Buffer.from('\0app\0secret').toString('base64')}`)).toBe('235 Authentication successful');
			client.close();
		},
	},
	'plus-addressing': {
		settings: { 'plus-addressing': 'true' },
		check: async (server) => {
			await server.send({ to: 'box+tag@flags.test', subject: 'tagged' });
			expect((await server.inbox('box@flags.test')).map((m) => [m.subject, m.originalInbox])).toEqual([['tagged', 'box+tag@flags.test']]);
		},
	},
	'verify-senders': {
		settings: { 'verify-senders': 'false' },
		check: async (server) => {
			await server.send({ to: 'unverified@flags.test', subject: 'not checked' });
			// Checked by default: an auth and an Authentication-Results header in front of the source.
			const [message] = await server.inbox('unverified@flags.test');
			expect(message.auth).toBeNull();
		},
	},
	'dns-servers': {
		prepare: async () => {
			const dns = await startDnsServer({ txt: { 'dnsflag.test': ['v=spf1 ip4:127.0.0.1 -all'] } });
			return { dns, close: () => dns.close() };
		},
		settings: { 'dns-servers': (fixture) => fixture.dns!.address },
		check: async (server, fixture) => {
			await server.send({ from: 'a@dnsflag.test', to: 'verified@flags.test', subject: 'checked' });
			// The system resolver knows nothing of dnsflag.test: SPF would be none.
			expect((await server.inbox('verified@flags.test'))[0].auth).toMatchObject({ spf: { result: 'pass', domain: 'dnsflag.test' } });
			expect(fixture.dns!.queries).toContain('TXT dnsflag.test');
		},
	},
	'dns-timeout': {
		prepare: async () => {
			const dns = await startDnsServer({});
			dns.silent.add('late.test');
			return { dns, close: () => dns.close() };
		},
		settings: { 'dns-timeout': '300ms' },
		also: (fixture) => ['--dns-servers', fixture.dns!.address],
		check: async (server) => {
			const started = Date.now();
			await server.send({ from: 'a@late.test', to: 'late@flags.test', subject: 'late' });
			// A DNS server that never answers holds the message up to --dns-timeout (5 s by default), then it is stored.
			expect(Date.now() - started).toBeLessThan(3000);
			expect((await server.inbox('late@flags.test'))[0].auth).toMatchObject({ spf: { result: 'temperror' } });
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
		// A message received two hours ago. The sweep walks messages in the order they came and stops at the first one young
		// enough to keep: this one must come first (so its group lists this case first).
		earlier: {
			run: async (server) => void (await server.send({ to: 'old@flags.test' })),
			change: (db) => db.prepare('UPDATE messages SET received = ? WHERE inbox = ?').run(Date.now() - 2 * 3600 * 1000, 'old@flags.test'),
		},
		settings: { 'retention-max-age': '1h' },
		check: async (server) => {
			await waitFor(async () => (await server.inbox('old@flags.test')).length === 0, 'the two-hour-old message to go');
		},
	},
	'retention-max-per-inbox': {
		// Two messages in one inbox.
		earlier: {
			run: async (server) => {
				for (const subject of ['older', 'newer']) await server.send({ to: 'full@flags.test', subject });
			},
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
	'search-timeout': {
		settings: { 'search-timeout': '1ms' },
		check: async (server) => {
			const key = await server.key();
			await server.api('/api/addresses/searched%40flags.test', { key, method: 'POST' });
			// 50 bodies of 64 KiB searched for a short term they lack: more than a millisecond (5 s by default). Sent as they
			// are (7bit), over a few connections at once.
			const transport = nodemailer.createTransport({
				host: server.where.smtpHost,
				port: server.where.smtpPort,
				ignoreTLS: true,
				pool: true,
			});
			const body = sevenBitMail({ from: 'a@sender.test', to: 'searched@flags.test', text: `${'a'.repeat(998)}\n`.repeat(66) });
			try {
				await Promise.all(Array.from({ length: 50 }, () => transport.sendMail({ ...body })));
			} finally {
				transport.close();
			}
			const searched = await server.api<ErrorBody>('/api/inbox-search?query=ab', { key });
			expect(searched).toEqual({
				status: 503,
				body: { error: 'Service Unavailable', message: expect.stringMatching(/longer than 0\.001 s.*--search-timeout/) },
			});
		},
	},
	'spool-threshold': {
		settings: { 'spool-threshold': '1KB' },
		check: async (server) => {
			await server.send({ to: 'spooled@flags.test', text: 'y'.repeat(4096) });
			// Received into a spool file, so its raw source is stored in pieces.
			expect(
				server.query<{ n: number }>(
					'SELECT count(*) AS n FROM content_raw_pieces JOIN messages USING (content_id) WHERE messages.inbox = ?',
					'spooled@flags.test',
				),
			).toEqual([{ n: 1 }]);
		},
	},
};

/** The flags `mailroom serve --help` lists. */
async function helpFlags(): Promise<string[]> {
	const { stdout } = await runCli(['serve', '--help']);
	return [...stdout.matchAll(/^\s+--([a-z-]+)/gm)].map((match) => match[1]).filter((flag) => flag !== 'help');
}

/**
 * The server every case is held against where an effect is a difference (threads, open files): defaults but for its place,
 * one parse worker and the greeting's hostname, all given as MAILROOM_* variables and no flag (the last test shows that
 * it reads them).
 */
const baseline = (() => {
	let started: Promise<ServeProcess> | undefined;
	return {
		get: () =>
			(started ??= (async () => {
				const where = await freeWhere(newDataDir());
				const settings = { ...whereSettings(where), 'smtp-host': '127.0.0.1', 'http-host': '127.0.0.1', hostname: 'from-env.test' };
				const variables = Object.fromEntries(Object.entries(settings).map(([flag, value]) => [settingOf(flag).env, value]));
				const server = await ServeProcess.start(where, [], variables);
				await server.send({ to: 'warm@flags.test' });
				return server;
			})()),
		stop: async () => (await started)?.stop(),
	};
})();

/** Every setting at its default. */
const DEFAULTS = resolveConfig({}, {});

const settingOf = (flag: string) => SETTINGS.find((setting) => setting.flag.startsWith(`--${flag} `))!;

/** A case's settings with the values its fixture (or the stand-ins) gives. */
const settingsOf = (testCase: FlagCase, sources: SettingSources, where: Where): Record<string, string> =>
	Object.fromEntries(
		Object.entries(testCase.settings).map(([flag, value]) => [flag, typeof value === 'string' ? value : value(sources, where)]),
	);

/**
 * What the fixtures and a server's place stand in for where the settings are only resolved: resolveConfig opens no file
 * and connects nowhere, so nothing need be made or started. None is a default.
 */
const STAND_INS: { sources: SettingSources; where: Where } = {
	sources: {
		port: 9100,
		relay: { url: 'smtp://127.0.0.1:2587' },
		dns: { address: '127.0.0.1:5353' },
		files: {
			cert: '/stand-in/cert.pem',
			key: '/stand-in/key.pem',
			url: 'postgres://mailroom:secret@127.0.0.1:5432/mailroom',
			adminKey: '/stand-in/admin-key',
		},
	},
	where: { dataDir: '/stand-in/data', smtpHost: '127.0.0.1', smtpPort: 2526, httpHost: '127.0.0.1', httpPort: 3001 },
};

/** The config `mailroom serve` resolves from flags, or from MAILROOM_* variables (flag names without the dashes). */
const configFromFlags = (settings: Record<string, string>) =>
	resolveConfig(Object.fromEntries(Object.entries(settings).map(([flag, value]) => [settingOf(flag).key, value])), {});
const configFromEnvironment = (settings: Record<string, string>) =>
	resolveConfig({}, Object.fromEntries(Object.entries(settings).map(([flag, value]) => [settingOf(flag).env, value])));

/**
 * The cases that share one `mailroom serve`, started with the settings (and `also` flags) of them all, and why they can.
 * A case's check looks only at its own mail, addresses, webhook receiver, relay and connections, and no other setting of its
 * group makes it pass more easily: it still fails when its own setting does nothing.
 */
const GROUPS: { why: string; cases: string[] }[] = [
	{
		why: 'every listener on 127.0.0.2 (the helpers then reach it there); each check looks at its own, and none needs the printed admin key',
		cases: ['smtp-host', 'http-host', 'metrics-host', 'admin-key'],
	},
	{
		why: 'held against the baseline: durability changes only the files open on the WAL, parse-workers only the threads; shutdown-timeout last, as its check stops the server',
		cases: ['durability', 'parse-workers', 'shutdown-timeout'],
	},
	{
		why: 'one data folder prepared for the three by one run before; each looks at its own inbox or webhook records',
		cases: ['retention-max-age', 'webhook-activity-days', 'retention-max-per-inbox'],
	},
	{
		why: 'the store in PostgreSQL (the admin key of the file made there), and beside it a case that stores nothing',
		cases: ['database-url', 'smtp-data-timeout', 'admin-key-file'],
	},
	// A limit on SMTP connections or an SMTP timer, beside cases that open no SMTP connection to the server (relayed mail
	// goes out to the relay, local mail straight into its inbox).
	{
		why: 'one SMTP connection at a time, and 2 API calls a minute without a key: relay-url calls with a key only',
		cases: ['smtp-max-clients', 'relay-url', 'rate-limit-ip'],
	},
	{ why: 'one SMTP connection per client address', cases: ['smtp-max-clients-per-ip', 'local-domains'] },
	{ why: 'idle SMTP connections cut after 1 s', cases: ['smtp-socket-timeout', 'relay-retry'] },
	{ why: 'SMTP sessions cut after 2 s', cases: ['smtp-session-timeout', 'dkim-domain'] },
	// A limit on the mail accepted, beside cases whose mail it lets through.
	{
		why: 'mail for allowed.test only (and the return path domain): webhook-allow-private sends none',
		cases: ['domains', 'webhook-allow-private', 'return-path-domain'],
	},
	{ why: 'messages up to 2 KB: the webhook cases send a few hundred bytes', cases: ['max-message-size', 'webhook-retry', 'work-lease'] },
	{
		why: 'one recipient per message: webhook-timeout sends to one, search-timeout to one a message (and no other case searches)',
		cases: ['smtp-max-recipients', 'webhook-timeout', 'search-timeout', 'verify-senders'],
	},
	{
		why: 'parses cut after 50 ms, and 2 API calls a minute with a key: retention-sweep-interval sends plain text (parsed at once, not on a parser thread) and keeps one message an inbox (parse-timeout sends one); neither calls the API with a key',
		cases: ['parse-timeout', 'rate-limit-key', 'retention-sweep-interval', 'dns-timeout'],
	},
	// The rest: settings that change only what their own case looks at.
	{
		why:
			'how it listens and answers, what it stores and sends, each case to addresses of its own: nodemailer ignores the STARTTLS offered, ' +
			'which hides AUTH until TLS unless smtp-auth-without-tls offers it; metrics-port counts its own message, no other case reads the logs; ' +
			'SMTP on 0.0.0.0 (for smtp-auth-without-tls) is reached at 127.0.0.1 too, and AUTH is optional',
		cases: [
			'smtp-port',
			'http-port',
			'metrics-port',
			'hostname',
			'log-level',
			'tls-cert',
			'smtp-bare-lf',
			'data-dir',
			'plus-addressing',
			'dns-servers',
			'spool-threshold',
			'public-url',
			'webhook-allow-hosts',
			'webhook-host-concurrency',
			'smtp-auth-without-tls',
			'test-domain',
		],
	},
];

/** The flags a group's server is given by its cases (their settings and `also` flags). */
const flagsOf = (cases: string[]) =>
	cases.flatMap((name) => [
		...Object.keys(CASES[name].settings).map((flag) => `--${flag}`),
		...(CASES[name].also?.(STAND_INS.sources) ?? []).filter((arg) => arg.startsWith('--')),
	]);

/**
 * Starts one `mailroom serve` with the settings and `also` flags of every case of `names`, once their fixtures are made
 * (pushed onto `fixtures`, in the order of `names`) and, when a case wants one, the data folder is prepared.
 */
async function startGroup(names: string[], fixtures: Fixture[]): Promise<ServeProcess> {
	for (const name of names) fixtures.push((await CASES[name].prepare?.()) ?? {});
	const earlier = names.flatMap((name, i) => {
		const { earlier: made } = CASES[name];
		return made ? [{ ...made, fixture: fixtures[i] }] : [];
	});
	let dataDir: string | undefined;
	if (earlier.length > 0) {
		const used = await usedDataDir(async (server) => {
			for (const { run, fixture } of earlier) await run(server, fixture);
		});
		withDatabase(used.dataDir, (db) => earlier.forEach(({ change }) => change?.(db)), { write: true });
		for (const { fixture } of earlier) fixture.key = used.key;
		dataDir = used.dataDir;
	}
	const where = await freeWhere(dataDir ?? newDataDir());
	const given = Object.fromEntries(names.flatMap((name, i) => Object.entries(settingsOf(CASES[name], fixtures[i], where))));
	if (given['smtp-host']) where.smtpHost = given['smtp-host'];
	if (given['http-host']) where.httpHost = given['http-host'];
	// The settings every start needs, unless they are what a case gives.
	const base = Object.entries(whereSettings(where)).filter(([flag]) => !(flag in given));
	const also = names.flatMap((name, i) => CASES[name].also?.(fixtures[i]) ?? []);
	return ServeProcess.start(where, [...asFlags(Object.fromEntries(base)), ...also, ...asFlags(given)]);
}

/**
 * Each flag is shown to change a running `mailroom serve` (one server serving the cases of a group); its environment
 * variable is shown to resolve to the same config (the resolver both forms go through), and a server started with its
 * settings as variables alone shows the process reads them.
 */
describe('mailroom serve: every flag, and its environment variable, changes the running server', () => {
	afterAll(() => baseline.stop());

	it('has a case here for every flag serve --help lists', async () => {
		const covered = Object.values(CASES).flatMap((testCase) => Object.keys(testCase.settings));
		expect([...new Set(covered)].sort()).toEqual((await helpFlags()).sort());
	});

	it('has each case in one group, and gives no flag twice to the server of a group', () => {
		expect(GROUPS.flatMap(({ cases }) => cases).sort()).toEqual(Object.keys(CASES).sort());
		for (const { cases } of GROUPS) {
			const flags = flagsOf(cases);
			expect(flags.filter((flag, i) => flags.indexOf(flag) !== i)).toEqual([]);
		}
	});

	describe.each(GROUPS.map(({ cases }) => [cases.map((name) => `--${name}`).join(' '), cases] as const))(
		'one server for %s',
		(_title, cases) => {
			const fixtures: Fixture[] = [];
			let server: ServeProcess | undefined;
			beforeAll(async () => {
				server = await startGroup(cases, fixtures);
			}, 60_000);
			afterAll(async () => {
				await server?.stop();
				for (const fixture of fixtures) {
					await fixture.relay?.close();
					await fixture.close?.();
				}
			});

			it.each(cases.map((name, i) => [name, i] as const))('--%s as its flag', async (name, i) => {
				await CASES[name].check(server!, fixtures[i]);
			});
		},
	);

	it.each(Object.keys(CASES))('--%s as its environment variable: the same config as the flag, and not the default', (name) => {
		const settings = settingsOf(CASES[name], STAND_INS.sources, STAND_INS.where);
		const fromEnvironment = configFromEnvironment(settings);
		expect(fromEnvironment).toEqual(configFromFlags(settings));
		const changed = Object.keys(settings).map((flag) => settingOf(flag).key);
		expect(changed.filter((key) => isDeepStrictEqual(fromEnvironment[key], DEFAULTS[key]))).toEqual([]);
	});

	it('reads MAILROOM_* variables when started with no flags at all', async () => {
		// The baseline is that server (started for the groups above, or now).
		const server = await baseline.get();
		const { where } = server;
		const running = await waitFor(() => runningAt(server.output), 'the "Mailroom is running" line');
		expect(running).toMatchObject({ smtp: `127.0.0.1:${where.smtpPort}`, http: `127.0.0.1:${where.httpPort}` });
		const { client, greeting } = await server.smtp();
		expect(greeting).toMatch(/^220 from-env\.test /);
		client.close();
		expect((await server.api('/livez')).status).toBe(200);
	});
});
