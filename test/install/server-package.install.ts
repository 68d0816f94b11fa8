/**
 * The mailroom-server package as a user installs it: `npm pack`, then `npm install <tarball>` in an empty folder (its
 * dependencies come from the registry, or npm's cache), then `npx --no mailroom serve` from there. No file of the repository
 * is used by the installed copy: what the tarball lacks (a file left out of "files", a dependency only the workspace has)
 * fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { cleanEnv, KEY, runningAt } from '../helpers/mailroom-cli';
import { waitFor } from '../helpers/webhook-receiver';

const ROOT = path.resolve(__dirname, '../..');

describe('the mailroom-server package installed from its tarball', () => {
	const work = mkdtempSync(path.join(tmpdir(), 'mailroom-install-'));
	const app = path.join(work, 'app');

	beforeAll(() => {
		const tarball = execFileSync('npm', ['pack', '--silent', '--workspace', 'mailroom-server', '--pack-destination', work], {
			cwd: ROOT,
			encoding: 'utf8',
		})
			.trim()
			.split('\n')
			.pop()!;
		execFileSync('mkdir', [app]);
		writeFileSync(path.join(app, 'package.json'), JSON.stringify({ private: true }));
		const started = Date.now();
		execFileSync('npm', ['install', '--no-audit', '--no-fund', path.join(work, tarball)], { cwd: app, stdio: 'ignore' });
		console.log(`npm install of ${tarball}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
	});

	afterAll(() => rmSync(work, { recursive: true, force: true }));

	it('links its `mailroom` command to the installed copy', () => {
		expect(readlinkSync(path.join(app, 'node_modules/.bin/mailroom'))).toBe('../mailroom-server/bin/mailroom.js');
	});

	it('serves with `npx --no mailroom serve`: receives mail over SMTP and lists it through its API, then stops on SIGTERM', async () => {
		const dataDir = path.join(work, 'data');
		const serve = spawn('npx', ['--no', 'mailroom', 'serve', '--data-dir', dataDir, '--smtp-port', '0', '--http-port', '0'], {
			cwd: app,
			env: cleanEnv(),
			// A process group of its own, stopped as a terminal or a service manager stops it: npx and the server it runs both get the signal.
			detached: true,
		});
		let output = '';
		serve.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
		serve.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
		const exited = new Promise<void>((resolve) => serve.on('exit', () => resolve()));
		try {
			const at = await waitFor(() => runningAt(output), 'mailroom serve to run', 60_000);
			const key = KEY.exec(output)![0];
			const [smtpHost, smtpPort] = at.smtp.split(':');
			const transport = nodemailer.createTransport({ host: smtpHost, port: Number(smtpPort), ignoreTLS: true });
			await transport.sendMail({
				from: 'user@sender.test',
				to: 'installed@example.test',
				subject: 'from an installed package',
				text: 'hi',
			});
			transport.close();

			const response = await fetch(`http://${at.http}/api/addresses/installed@example.test/messages`, { headers: { 'Service-Key': key } });
			expect(response.status).toBe(200);
			const messages = (await response.json()) as MessageRecord[];
			expect(messages.map((message) => message.subject)).toEqual(['from an installed package']);
		} finally {
			process.kill(-serve.pid!, 'SIGTERM');
		}
		// npx itself dies of the signal; the server it started stops cleanly and says so.
		await exited;
		await waitFor(() => output.includes('"Mailroom stopped"'), 'the server to stop', 30_000);
	});
});
