import { describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startMailroom } from 'mailroom-server/dist/app';
import { startTestMailroom, tempDataDir, testConfig } from '../../helpers/mailroom';
import { startTestRelay } from '../../helpers/smtp-relay';
import { selfSignedCertificate } from '../../helpers/tls';
import { postOutgoing, senderAccount, sendingSetup } from '../../helpers/outgoing';
import { verifyDkim } from '../../helpers/dkim';

describe("the relay's replies", () => {
	const setup = sendingSetup();

	const send = (body: Record<string, unknown>) => postOutgoing(setup.server, setup.alice.key, body);

	it('records a permanent relay refusal with the reply, per recipient', async () => {
		const res = await send({ from: 'alice@local.test', to: ['bounce@remote.test', 'fine@remote.test'], subject: 'half', text: 't' });
		expect(res.status).toBe(200);
		expect(res.body.status).toBe('failed');
		expect(res.body.lastError).toMatch(/^550 .*No such user here/);
		expect(res.body.recipients).toMatchObject([
			{ address: 'bounce@remote.test', field: 'to', route: 'relay', status: 'failed', error: expect.stringMatching(/^550 /), note: null },
			{ address: 'fine@remote.test', field: 'to', route: 'relay', status: 'delivered', error: null, note: null },
		]);
		const all = await send({ from: 'alice@local.test', to: 'bounce@remote.test', subject: 'all', text: 't' });
		expect(all.body).toMatchObject({ status: 'failed', attempts: 1, recipients: [{ status: 'failed' }] });
	});

	it('sends the copies of one message, and of messages sent together, over one connection: a transaction each, from its return path', async () => {
		const { relay } = setup;
		const [connectionsBefore, relayedBefore] = [relay.connections, relay.received.length];
		const to = ['one', 'two', 'three', 'four', 'five'].map((name) => `${name}@remote.test`);
		const res = await send({ from: 'alice@local.test', to, subject: 'five copies', text: 't' });
		expect(res.body.status).toBe('delivered');
		const relayed = (await relay.waitFor(relayedBefore + 5)).slice(relayedBefore);
		expect(relayed.map((mail) => [mail.from, mail.to])).toEqual(res.body.recipients.map((r) => [r.returnPath, [r.address]]));
		// One, or none when the connection of the test before is still open.
		expect(relay.connections - connectionsBefore).toBeLessThanOrEqual(1);

		// Three messages at once, two copies each: the attempts running together take at most one connection each.
		const sent = await Promise.all(
			[1, 2, 3].map((i) => send({ from: 'alice@local.test', to: [`a${i}@remote.test`, `b${i}@remote.test`], subject: `${i}`, text: 't' })),
		);
		expect(sent.map((s) => s.body.status)).toEqual(['delivered', 'delivered', 'delivered']);
		expect(relay.connections - connectionsBefore).toBeLessThanOrEqual(4);
	});
});

describe('relay security and DKIM', () => {
	it('logs in over STARTTLS and signs with the configured DKIM key', async () => {
		const dir = tempDataDir();
		const tls = selfSignedCertificate(dir);
		const relay = await startTestRelay({ tls, auth: { user: 'mailer', pass: 's3cret' } });
		const keyFile = join(dir, 'dkim.pem');
		const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
		writeFileSync(keyFile, keys.privateKey.export({ type: 'pkcs8', format: 'pem' }));
		const server = await startTestMailroom({
			domains: ['local.test'],
			relayUrl: `smtp://mailer:s3cret@127.0.0.1:${relay.port}?tls.rejectUnauthorized=false`,
			dkimDomain: 'local.test',
			dkimSelector: 'mail2026',
			dkimKeyFile: keyFile,
		});
		try {
			const account = await senderAccount(server, 'a', 'a@local.test', 1);
			const res = await postOutgoing(server, account.key, { from: 'a@local.test', to: 'signed@remote.test', subject: 'signed', text: 't' });
			expect(res.body.status).toBe('delivered');
			const [mail] = await relay.waitFor(1);
			expect(mail.secure).toBe(true);
			expect(mail.user).toBe('mailer');
			expect(verifyDkim(mail.raw, keys.publicKey)).toMatchObject({
				v: '1',
				a: 'rsa-sha256',
				c: 'relaxed/relaxed',
				d: 'local.test',
				s: 'mail2026',
			});
			expect(() => verifyDkim(mail.raw.replace('Subject: signed', 'Subject: altered'), keys.publicKey)).toThrow();
			expect(() => verifyDkim(`${mail.raw}appended line\r\n`, keys.publicKey)).toThrow();
		} finally {
			await server.stop();
			await relay.close();
		}
	});

	it('never sends relay credentials over a connection without TLS', async () => {
		const relay = await startTestRelay();
		const server = await startTestMailroom({
			domains: ['local.test'],
			relayUrl: `smtp://u:p@127.0.0.1:${relay.port}`,
			relayRetryDelays: [],
		});
		try {
			const account = await senderAccount(server, 'a', 'a@local.test', 1);
			const res = await postOutgoing(server, account.key, { from: 'a@local.test', to: 'x@remote.test', subject: 's', text: 't' });
			expect(res.body).toMatchObject({ status: 'failed', lastError: expect.stringMatching(/^gave up after 1 attempt: .*STARTTLS/) });
			expect(relay.received).toHaveLength(0);
		} finally {
			await server.stop();
			await relay.close();
		}
	});

	// The relay reads the key; startMailroom has it read first, before anything is opened.
	it('refuses to start with a DKIM key file that holds no private key', async () => {
		const keyFile = join(tempDataDir(), 'bad.pem');
		writeFileSync(keyFile, 'not a key');
		const config = testConfig({ relayUrl: 'smtp://127.0.0.1:25', dkimDomain: 'example.com', dkimSelector: 's1', dkimKeyFile: keyFile });
		await expect(startMailroom(config)).rejects.toThrow(/--dkim-key .*bad\.pem is not a PEM private key/);
	});
});
