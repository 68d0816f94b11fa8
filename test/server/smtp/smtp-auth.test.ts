import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isLoopbackHost } from 'mailroom-server/dist/smtp/smtp-auth';
import { inboxMessages, subjects } from '../../helpers/inboxes';
import { startTestMailroom, tempDataDir, type TestMailroom } from '../../helpers/mailroom';
import { RawSmtp } from '../../helpers/raw-smtp';
import { pythonSmtplib, swaks } from '../../helpers/smtp-clients';
import { selfSignedCertificate } from '../../helpers/tls';
import { senderAccount } from '../../helpers/outgoing';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const plain = (user: string, password: string) => b64(`\0${user}\0${password}`);

/** The EHLO reply's extensions, e.g. ['PIPELINING', 'AUTH PLAIN LOGIN', 'STARTTLS', 'SIZE 26214400']. */
async function extensions(client: RawSmtp): Promise<string[]> {
	const reply = await client.command('EHLO client.test');
	return reply
		.split('\n')
		.slice(1)
		.map((line) => line.slice(4));
}

/** A raw session from `localAddress` (another loopback address, so its failures count apart), after EHLO. */
async function session(server: TestMailroom, localAddress?: string): Promise<RawSmtp> {
	const { client } = await RawSmtp.connect(server.smtpPort, localAddress);
	await extensions(client);
	return client;
}

/** A nodemailer transport that logs in with `user` and `pass`, as apps configure it. */
const withLogin = (server: TestMailroom, user: string, pass: string) =>
	nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, secure: false, ignoreTLS: true, auth: { user, pass } });

describe('SMTP AUTH on a loopback listener (the default --smtp-host)', () => {
	let server: TestMailroom;
	let alice: { id: string; key: string };
	beforeAll(async () => {
		server = await startTestMailroom({ domains: ['local.test'] });
		alice = await senderAccount(server, 'alice', 'alice@local.test', 10);
	});
	afterAll(() => server.stop());

	it('is offered without TLS, PLAIN and LOGIN', async () => {
		const client = (await RawSmtp.connect(server.smtpPort)).client;
		expect(await extensions(client)).toContain('AUTH PLAIN LOGIN');
		client.close();
	});

	it('accepts any credentials, and the mail goes into the inbox as without AUTH (swaks, PLAIN and LOGIN)', async () => {
		for (const method of ['PLAIN', 'LOGIN']) {
			const run = await swaks(server.smtpPort, [
				...['--to', 'bob@local.test', '--from', 'app@elsewhere.test', '--header', `Subject: any ${method}`],
				...['--auth', method, '--auth-user', 'whoever', '--auth-password', 'anything at all'],
			]);
			expect(run.output).toContain('235 Authentication successful');
			expect(run.output).toMatch(/<- {2}250 OK: stored as \S+/);
			expect(run.code).toBe(0);
		}
		expect(await subjects(server, 'bob@local.test')).toEqual(['any LOGIN', 'any PLAIN']);
		expect((await inboxMessages(server, 'bob@local.test'))[0]).toMatchObject({ ip: '127.0.0.1', originalInbox: 'bob@local.test' });
	});

	it('accepts any credentials from nodemailer and from Python smtplib.login', async () => {
		const transport = withLogin(server, 'user@app', 'secret');
		const info = await transport.sendMail({ from: 'app@elsewhere.test', to: 'carol@local.test', subject: 'from nodemailer', text: 'x' });
		transport.close();
		expect(info.response).toMatch(/^250 OK: stored as /);
		const python = await pythonSmtplib(server.smtpPort, {
			...{ user: 'app', password: 'hunter2', from: 'app@elsewhere.test', to: ['carol@local.test'] },
			...{ subject: 'from python', body: 'sent by smtplib' },
		});
		expect(python).toEqual({ ok: true });
		expect(await subjects(server, 'carol@local.test')).toEqual(['from python', 'from nodemailer']);
	});

	it('gives an accept-any session no more than an anonymous one: mail for other domains is refused', async () => {
		const client = await session(server);
		expect(await client.command(`AUTH PLAIN ${plain('someone', 'not-a-key')}`)).toBe('235 Authentication successful');
		expect(await client.command('MAIL FROM:<alice@local.test>')).toMatch(/^250 /);
		expect(await client.command('RCPT TO:<far@remote.test>')).toBe('550 Mail for remote.test is not accepted here');
		client.close();
	});

	it("makes a session with an account's API key (any user name) a submission session", async () => {
		const run = await swaks(server.smtpPort, [
			...['--to', 'dave@local.test', '--from', 'alice@local.test', '--header', 'Subject: submitted'],
			...['--auth', 'LOGIN', '--auth-user', 'ignored', '--auth-password', alice.key],
		]);
		expect(run.output).toMatch(/<- {2}250 OK: queued as \S+/);
		expect(run.code).toBe(0);
	});

	it('refuses with 535 a password that starts with mr_ but is no active key: unknown, mistyped or revoked', async () => {
		const revoked = await server.accounts.createKey(alice.id, 'to revoke');
		await server.accounts.revokeKey(revoked.info.id);
		const refusal = '535 5.7.8 Authentication credentials invalid: the password starts with mr_ but is no active API key';
		for (const password of ['mr_unknown', alice.key.slice(0, -1), revoked.key]) {
			const client = await session(server, '127.0.0.4');
			expect(await client.command(`AUTH PLAIN ${plain('alice', password)}`)).toMatch(new RegExp(`^${refusal}`));
			// Not authenticated: mail is received as from anyone.
			expect(await client.command('MAIL FROM:<alice@local.test>')).toMatch(/^250 /);
			expect(await client.command('RCPT TO:<x@remote.test>')).toMatch(/^550 /);
			client.close();
		}
		const swaksRun = await swaks(server.smtpPort, [
			...['--to', 'x@local.test', '--auth', 'PLAIN', '--auth-user', 'alice', '--auth-password', 'mr_typo'],
			...['--local-interface', '127.0.0.4'],
		]);
		expect(swaksRun.code).not.toBe(0);
		expect(swaksRun.output).toMatch(/<\*\* 535 5\.7\.8 /);
		const python = await pythonSmtplib(server.smtpPort, {
			...{ user: 'alice', password: revoked.key, from: 'alice@local.test', to: ['x@local.test'] },
			...{ subject: 's', body: 'b' },
		});
		expect(python).toMatchObject({ ok: false, error: 'SMTPAuthenticationError', code: 535 });
	});

	it('answers malformed AUTH with 5xx replies and the session goes on', async () => {
		const client = await session(server);
		expect(await client.command('AUTH PLAIN !!!not-base64!!!')).toBe('501 Error: invalid userdata');
		expect(await client.command('AUTH PLAIN')).toBe('334 ');
		expect(await client.command('*')).toBe('501 Authentication aborted');
		expect(await client.command('AUTH LOGIN')).toBe('334 VXNlcm5hbWU6');
		expect(await client.command('')).toBe('501 Error: missing username');
		expect(await client.command('AUTH CRAM-MD5')).toBe('504 Error: Unrecognized authentication type');
		expect(await client.command('AUTH XOAUTH2 abc')).toBe('504 Error: Unrecognized authentication type');
		expect(await client.command(`AUTH PLAIN ${plain('a', 'b')} extra`)).toBe('501 Error: syntax: AUTH PLAIN token');
		expect(await client.command(`AUTH PLAIN ${plain('a', 'b')}`)).toBe('235 Authentication successful');
		expect(await client.command(`AUTH PLAIN ${plain('a', 'b')}`)).toBe('503 Error: No identity changes permitted');
		client.close();
		const fresh = await RawSmtp.connect(server.smtpPort);
		expect(await fresh.client.command(`AUTH PLAIN ${plain('a', 'b')}`)).toBe('503 Error: send HELO/EHLO first');
		fresh.client.close();
	});

	it('refuses wrong keys from a client address with 454 once it failed 10 times, still lets a right key through, and no other address', async () => {
		const limited = '127.0.0.3';
		for (let i = 0; i < 10; i++) {
			const client = await session(server, limited);
			expect(await client.command(`AUTH PLAIN ${plain('guess', `mr_guess${i}`)}`)).toMatch(/^535 5\.7\.8 /);
			client.close();
		}
		const client = await session(server, limited);
		const blocked = `454 4.7.0 Too many failed authentication attempts from ${limited}, try again later`;
		expect(await client.command(`AUTH PLAIN ${plain('guess', 'mr_guess10')}`)).toBe(blocked);
		// A right key still gets through: others may share the address (NAT, a proxy), and its owner is not locked out.
		expect(await client.command(`AUTH PLAIN ${plain('alice', alice.key)}`)).toBe('235 Authentication successful');
		client.close();
		const again = await session(server, limited);
		expect(await again.command(`AUTH PLAIN ${plain('guess', 'mr_guess11')}`)).toBe(blocked);
		again.close();
		const client2 = await session(server, limited);
		// Passwords that are no keys are not limited: nothing is looked up for them.
		expect(await client2.command(`AUTH PLAIN ${plain('any', 'password')}`)).toBe('235 Authentication successful');
		client2.close();
		const other = await session(server, '127.0.0.5');
		expect(await other.command(`AUTH PLAIN ${plain('alice', alice.key)}`)).toBe('235 Authentication successful');
		other.close();
	});
});

describe('SMTP AUTH on a listener other hosts reach (--smtp-host 0.0.0.0)', () => {
	it('is not offered without TLS: not advertised, not accepted, and mail is still received', async () => {
		const server = await startTestMailroom({ smtpHost: '0.0.0.0', domains: ['local.test'] });
		try {
			const client = await session(server);
			const { client: probe } = await RawSmtp.connect(server.smtpPort);
			expect((await extensions(probe)).filter((extension) => /AUTH|STARTTLS/.test(extension))).toEqual([]);
			probe.close();
			expect(await client.command(`AUTH PLAIN ${plain('a', 'b')}`)).toBe('500 Error: command not recognized');
			client.close();
			const python = await pythonSmtplib(server.smtpPort, {
				...{ user: 'app', password: 'secret', from: 'app@elsewhere.test', to: ['x@local.test'] },
				...{ subject: 's', body: 'b' },
			});
			expect(python).toMatchObject({ ok: false, error: 'SMTPNotSupportedError' });
			await server.send({ from: 'a@elsewhere.test', to: 'x@local.test', subject: 'anonymous', text: 'x' });
			expect(await subjects(server, 'x@local.test')).toEqual(['anonymous']);
		} finally {
			await server.stop();
		}
	});

	it('is offered without TLS with --smtp-auth-without-tls', async () => {
		const server = await startTestMailroom({ smtpHost: '0.0.0.0', smtpAuthWithoutTls: true, domains: ['local.test'] });
		try {
			const run = await swaks(server.smtpPort, ['--to', 'x@local.test', '--auth', 'PLAIN', '--auth-user', 'u', '--auth-password', 'p']);
			expect(run.output).toContain('235 Authentication successful');
			expect(run.code).toBe(0);
		} finally {
			await server.stop();
		}
	});

	it('is offered after STARTTLS only, to swaks, Python and nodemailer', async () => {
		const { cert, key } = selfSignedCertificate(tempDataDir());
		const server = await startTestMailroom({ smtpHost: '0.0.0.0', tlsCert: cert, tlsKey: key, domains: ['local.test'] });
		try {
			const { client } = await RawSmtp.connect(server.smtpPort);
			const before = await extensions(client);
			expect(before).toContain('STARTTLS');
			expect(before.filter((extension) => extension.startsWith('AUTH'))).toEqual([]);
			expect(await client.command(`AUTH PLAIN ${plain('a', 'b')}`)).toBe('500 Error: command not recognized');
			client.close();

			const run = await swaks(server.smtpPort, [
				...['--tls', '--to', 'secure@local.test', '--header', 'Subject: swaks over tls'],
				...['--auth', 'LOGIN', '--auth-user', 'u', '--auth-password', 'p'],
			]);
			expect(run.output).toMatch(/250-AUTH PLAIN LOGIN/);
			expect(run.output).toContain('235 Authentication successful');
			expect(run.code).toBe(0);
			const python = await pythonSmtplib(server.smtpPort, {
				...{ user: 'app', password: 'secret', from: 'app@elsewhere.test', to: ['secure@local.test'] },
				...{ subject: 'python over tls', body: 'b', starttls: true },
			});
			expect(python).toEqual({ ok: true });
			const transport = nodemailer.createTransport({
				...{ host: '127.0.0.1', port: server.smtpPort, requireTLS: true, tls: { rejectUnauthorized: false } },
				auth: { user: 'app', pass: 'secret' },
			});
			await transport.sendMail({ from: 'app@elsewhere.test', to: 'secure@local.test', subject: 'nodemailer over tls', text: 'x' });
			transport.close();
			const stored = await inboxMessages(server, 'secure@local.test');
			expect(stored.map((message) => [message.subject, message.rtls])).toEqual([
				['nodemailer over tls', true],
				['python over tls', true],
				['swaks over tls', true],
			]);
		} finally {
			await server.stop();
		}
	});
});

describe('isLoopbackHost', () => {
	it.each([
		['127.0.0.1', true],
		['127.1.2.3', true],
		['::1', true],
		['::ffff:127.0.0.1', true],
		['localhost', true],
		['0.0.0.0', false],
		['::', false],
		['192.168.1.10', false],
		['mail.example.com', false],
	])('%s: %s', (host, loopback) => expect(isLoopbackHost(host)).toBe(loopback));
});
