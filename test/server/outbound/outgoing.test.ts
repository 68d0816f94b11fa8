import { createHash, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestMailroom, tempDataDir, type TestMailroom } from '../../helpers/mailroom';
import { freePort, startTestRelay, type TestRelay } from '../../helpers/smtp-relay';
import { selfSignedCertificate } from '../../helpers/tls';
import { WebhookReceiver, waitFor } from '../../helpers/webhook-receiver';

const NO_CREDITS = { error: 'Payment Required', message: 'You must purchase more outgoing message credits before you can send' };

/**
 * Checks a DKIM-Signature (relaxed/relaxed, rsa-sha256) against the public key, as a receiver would (RFC 6376 3.4.2, 3.4.4, 3.7):
 * the body hash and the signature over the signed headers. Returns the signature's tags.
 */
function verifyDkim(raw: string, publicKey: KeyObject): Record<string, string> {
	const split = raw.indexOf('\r\n\r\n');
	const fields = raw
		.slice(0, split + 2)
		.split(/\r\n(?![ \t])/)
		.filter(Boolean);
	const nameOf = (field: string) => field.slice(0, field.indexOf(':')).trim().toLowerCase();
	const relaxed = (field: string) =>
		`${nameOf(field)}:${field
			.slice(field.indexOf(':') + 1)
			.replace(/\r\n/g, '')
			.replace(/[ \t]+/g, ' ')
			.trim()}`;
	const signature = fields.find((field) => nameOf(field) === 'dkim-signature')!;
	const tags = Object.fromEntries(
		relaxed(signature)
			.slice('dkim-signature:'.length)
			.split(';')
			.filter((tag) => tag.trim())
			.map((tag) => {
				const [name, ...value] = tag.split('=');
				return [name.trim(), value.join('=').replace(/\s/g, '')];
			}),
	);
	const body = raw
		.slice(split + 4)
		.split('\r\n')
		.map((line) => line.replace(/[ \t]+/g, ' ').replace(/ $/, ''))
		.join('\r\n')
		.replace(/(\r\n)*$/, '');
	expect(tags.bh).toBe(
		createHash('sha256')
			.update(body ? `${body}\r\n` : '')
			.digest('base64'),
	);
	const unused = [...fields];
	const signed = tags.h.split(':').map((name) => {
		const index = unused.map(nameOf).lastIndexOf(name.toLowerCase());
		return index < 0 ? '' : `${relaxed(unused.splice(index, 1)[0])}\r\n`;
	});
	const data = signed.join('') + relaxed(signature).replace(/([; ]b=)[^;]*/, '$1');
	expect(verify('sha256', Buffer.from(data), publicKey, Buffer.from(tags.b, 'base64'))).toBe(true);
	return tags;
}

/** An account with `credits` that owns `address` (reserved through the API). */
async function sender(server: TestMailroom, name: string, address: string, credits: number) {
	const account = server.createAccount(name, credits);
	expect((await server.api(`/api/addresses/${address}`, { method: 'POST', key: account.key })).status).toBe(200);
	return account;
}

const credits = async (server: TestMailroom, key: string) => (await server.api('/api/me', { key })).body.sendsRemaining;

describe('POST /api/outgoing-messages with a relay', () => {
	let relay: TestRelay;
	let server: TestMailroom;
	let alice: { id: string; key: string };

	beforeAll(async () => {
		relay = await startTestRelay({
			refuse: (rcpt) => (rcpt.startsWith('bounce@') ? { code: 550, message: 'No such user here' } : undefined),
		});
		server = await startTestMailroom({ domains: ['local.test'], relayUrl: relay.url, relayRetryDelays: [50, 50, 50] });
		alice = await sender(server, 'alice', 'alice@local.test', 1000);
	});
	afterAll(async () => {
		await server.stop();
		await relay.close();
	});

	/** Sends with alice's key in the header, another key, or (null) none. */
	const send = (body: Record<string, unknown>, key: string | null = alice.key) =>
		server.api('/api/outgoing-messages', { method: 'POST', key: key ?? undefined, body });

	it('relays mail for other domains with the right envelope, headers and body, and takes one credit', async () => {
		const before = await credits(server, alice.key);
		const res = await send({
			from: 'Alice Example <alice@local.test>',
			to: 'Carol@Remote.test',
			subject: 'Quarterly report',
			text: 'Plain text body https://example.org/r',
			html: '<p>HTML <b>body</b></p>',
		});
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({
			from: 'alice@local.test',
			to: ['carol@remote.test'],
			subject: 'Quarterly report',
			status: 'delivered',
			lastError: null,
			attempts: 1,
			recipients: [{ address: 'carol@remote.test', route: 'relay', status: 'delivered', error: null }],
			creditsRemaining: before - 1,
			warnings: [],
		});
		expect(res.body.id).toBe(res.body._id);
		expect(res.body.sent).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
		expect(await credits(server, alice.key)).toBe(before - 1);

		const [mail] = (await relay.waitFor(1)).slice(-1);
		expect(mail.from).toBe('alice@local.test');
		expect(mail.to).toEqual(['carol@remote.test']);
		expect(mail.parsed.from?.value).toEqual([{ address: 'alice@local.test', name: 'Alice Example' }]);
		expect(mail.parsed.to).toMatchObject({ value: [{ address: 'carol@remote.test' }] });
		expect(mail.parsed.subject).toBe('Quarterly report');
		expect(mail.parsed.text?.trim()).toBe('Plain text body https://example.org/r');
		expect(mail.parsed.html).toContain('<p>HTML <b>body</b></p>');
		expect(mail.parsed.messageId).toBe(`<${res.body._id}@local.test>`);
		expect(mail.parsed.date?.toISOString()).toBe(res.body.sent);
		expect(mail.raw).not.toMatch(/^dkim-signature:/im);
	});

	it('delivers local recipients into their inbox through ingest (webhooks fire), and relays the rest, in one send', async () => {
		const receiver = new WebhookReceiver();
		await receiver.listen();
		const dan = await sender(server, 'dan', 'dan@local.test', 0);
		expect(
			(
				await server.api('/api/private-address-forwarding/dan@local.test', {
					method: 'PUT',
					key: dan.key,
					body: { webhook: `${receiver.url}/dan` },
				})
			).status,
		).toBe(200);
		const delivered: string[][] = [];
		let statusAtCommit: { address: string; status: string }[] = [];
		const onStored = (records: { inbox: string }[]) => {
			delivered.push(records.map((r) => r.inbox));
			// Emitted right after the commit that stored the copies: it must have marked them delivered too.
			const row = server.db.prepare('SELECT recipients_json FROM outgoing_messages ORDER BY seq DESC LIMIT 1').get() as {
				recipients_json: string;
			};
			statusAtCommit = JSON.parse(row.recipients_json);
		};
		server.ingest.on('stored', onStored);
		const relayedBefore = relay.received.length;
		const res = await send({
			from: 'alice@local.test',
			to: ['Dan <dan@local.test>', 'erin@remote.test', 'dan@local.test', 'Fay@local.test'],
			subject: 'Mixed',
			text: 'to everyone',
		});
		server.ingest.off('stored', onStored);
		expect(res.status).toBe(200);
		expect(res.body.status).toBe('delivered');
		expect(res.body.to).toEqual(['dan@local.test', 'erin@remote.test', 'fay@local.test']);
		expect(res.body.recipients.map((r: { route: string }) => r.route)).toEqual(['local', 'relay', 'local']);
		expect(delivered).toEqual([['dan@local.test', 'fay@local.test']]);
		expect(statusAtCommit.filter((r) => r.address.endsWith('@local.test')).map((r) => r.status)).toEqual(['delivered', 'delivered']);

		const inbox = await server.api('/api/addresses/dan@local.test/messages', { key: dan.key });
		expect(inbox.body).toHaveLength(1);
		expect(inbox.body[0]).toMatchObject({
			from: [{ address: 'alice@local.test', name: '' }],
			subject: 'Mixed',
			inbox: 'dan@local.test',
			ip: '127.0.0.1',
			rtls: false,
		});
		expect(inbox.body[0].to.map((a: { address: string }) => a.address)).toEqual(['dan@local.test', 'erin@remote.test', 'fay@local.test']);
		expect((await server.api(`/api/text/dan@local.test/${inbox.body[0]._id}`, { key: dan.key })).text).toBe('to everyone\n');

		const hook = await waitFor(() => receiver.requests[0], 'the webhook request');
		await receiver.close();
		expect(hook.url).toBe('/dan');
		expect(JSON.parse(hook.body)).toMatchObject({
			_id: inbox.body[0]._id,
			subject: 'Mixed',
			inbox: 'dan@local.test',
			from: [{ address: 'alice@local.test' }],
		});
		expect((await server.api('/api/addresses/fay@local.test/messages')).body).toHaveLength(1);

		const [relayed] = (await relay.waitFor(relayedBefore + 1)).slice(relayedBefore);
		expect(relayed.to).toEqual(['erin@remote.test']);
		expect(relayed.parsed.subject).toBe('Mixed');
	});

	it('accepts the key in the body or the header, and refuses unknown keys with 401', async () => {
		const mail = { from: 'alice@local.test', to: 'keys@local.test', subject: 'k', text: 'k' };
		expect((await send({ ...mail, _serviceKey: alice.key }, null)).status).toBe(200);
		expect((await send(mail)).status).toBe(200);
		const noKey = await send(mail, null);
		expect(noKey.status).toBe(401);
		expect(noKey.body.error).toBe('Unauthorized');
		expect((await send({ ...mail, _serviceKey: 'mr_unknown' }, null)).status).toBe(401);
		expect((await send(mail, 'mr_unknown')).status).toBe(401);
		expect((await server.api('/api/addresses/keys@local.test/messages')).body).toHaveLength(2);
	});

	it('answers 400 naming the field for invalid JSON and missing or invalid fields, and charges nothing', async () => {
		const before = await credits(server, alice.key);
		const badJson = await send('{"to": "x@local.test",' as unknown as Record<string, unknown>);
		expect(badJson.status).toBe(400);
		expect(badJson.body.message).toMatch(/JSON/);
		const cases: [Record<string, unknown>, RegExp][] = [
			[{ from: 'alice@local.test', text: 'x' }, /\bto\b/],
			[{ to: 'x@local.test', text: 'x' }, /\bfrom\b/],
			[{ from: 'alice@local.test', to: 'x@local.test', subject: 's' }, /\btext\b/],
			[{ from: 'alice@local.test', to: 'not an address', text: 'x' }, /body\/to "not an address"/],
			[{ from: 'alice@@local.test', to: 'x@local.test', text: 'x' }, /body\/from/],
			[{ from: 'alice@local.test', to: [], text: 'x' }, /body\/to/],
			[{ from: 'alice@local.test', to: { address: 'x@local.test' }, text: 'x' }, /body\/to/],
			[{ from: 'alice@local.test', to: Array.from({ length: 51 }, (_, i) => `r${i}@local.test`), text: 'x' }, /body\/to/],
			[{ from: 'alice@local.test', to: Array.from({ length: 51 }, (_, i) => `r${i}@local.test`).join(', '), text: 'x' }, /body\/to.*50/],
		];
		for (const [body, message] of cases) {
			const res = await send(body);
			expect({ body, status: res.status, error: res.body.error }).toEqual({ body, status: 400, error: 'Bad Request' });
			expect(res.body.message).toMatch(message);
		}
		expect(await credits(server, alice.key)).toBe(before);
	});

	it('accepts a missing subject with a warning', async () => {
		const res = await send({ from: 'alice@local.test', to: 'nosubject@local.test', text: 'no subject here' });
		expect(res.status).toBe(200);
		expect(res.body.subject).toBe('');
		expect(res.body.warnings).toEqual([expect.stringMatching(/subject/i)]);
	});

	it('refuses a from address the account does not own with 403, and charges nothing', async () => {
		const mallory = await sender(server, 'mallory', 'mallory@local.test', 5);
		for (const from of ['alice@local.test', 'unreserved@local.test', 'mallory@remote.test']) {
			const res = await send({ from, to: 'victim@local.test', subject: 's', text: 't' }, mallory.key);
			expect(res.status).toBe(403);
			expect(res.body.message).toContain(from);
		}
		expect(await credits(server, mallory.key)).toBe(5);
		expect((await server.api('/api/addresses/victim@local.test/messages')).body).toHaveLength(0);
	});

	it('answers 402 when credits are short, sending and deducting nothing', async () => {
		const poor = await sender(server, 'poor', 'poor@local.test', 1);
		const relayedBefore = relay.received.length;
		const res = await send({ from: 'poor@local.test', to: ['p1@local.test', 'p2@remote.test'], subject: 's', text: 't' }, poor.key);
		expect(res.status).toBe(402);
		expect(res.body).toEqual(NO_CREDITS);
		expect(await credits(server, poor.key)).toBe(1);
		expect((await server.api('/api/outgoing-messages', { key: poor.key })).body).toEqual([]);
		expect((await server.api('/api/addresses/p1@local.test/messages')).body).toHaveLength(0);
		expect(relay.received.length).toBe(relayedBefore);

		const zero = await sender(server, 'zero', 'zero@local.test', 0);
		expect((await send({ from: 'zero@local.test', to: 'p1@local.test', text: 't' }, zero.key)).body).toEqual(NO_CREDITS);
	});

	it('sends from any address in a domain the account owns', async () => {
		const owner = server.createAccount('domain-owner', 3);
		server.db.prepare("INSERT INTO domains (domain, owner, created) VALUES ('owned.test', ?, '2026-01-01T00:00:00.000Z')").run(owner.id);
		const res = await send({ from: 'anything@owned.test', to: 'someone@owned.test', subject: 'own domain', text: 't' }, owner.key);
		expect(res.status).toBe(200);
		expect(res.body.recipients).toEqual([{ address: 'someone@owned.test', route: 'local', status: 'delivered', error: null }]);
	});

	it('records a permanent relay refusal with the reply, per recipient', async () => {
		const res = await send({ from: 'alice@local.test', to: ['bounce@remote.test', 'fine@remote.test'], subject: 'half', text: 't' });
		expect(res.status).toBe(200);
		expect(res.body.status).toBe('failed');
		expect(res.body.lastError).toMatch(/^550 .*No such user here/);
		expect(res.body.recipients).toEqual([
			{ address: 'bounce@remote.test', route: 'relay', status: 'failed', error: expect.stringMatching(/^550 /) },
			{ address: 'fine@remote.test', route: 'relay', status: 'delivered', error: null },
		]);
		const all = await send({ from: 'alice@local.test', to: 'bounce@remote.test', subject: 'all', text: 't' });
		expect(all.body).toMatchObject({ status: 'failed', attempts: 1, recipients: [{ status: 'failed' }] });
	});

	it('lists sent mail newest first with status and last error', async () => {
		const list = await server.api('/api/outgoing-messages?limit=3', { key: alice.key });
		expect(list.status).toBe(200);
		expect(list.body).toHaveLength(3);
		expect(list.body.map((m: { subject: string }) => m.subject)).toEqual(['all', 'half', expect.any(String)]);
		expect(list.body[0]).toMatchObject({ status: 'failed', lastError: expect.stringMatching(/^550 /), to: ['bounce@remote.test'] });
		expect(Object.keys(list.body[0]).sort()).toEqual([
			'_id',
			'attempts',
			'from',
			'lastError',
			'recipients',
			'sent',
			'status',
			'subject',
			'to',
		]);
		expect((await server.api('/api/outgoing-messages')).status).toBe(401);
		expect((await server.api('/api/outgoing-messages?limit=0', { key: alice.key })).status).toBe(400);
	});

	it('never overspends under concurrent sends', async () => {
		const busy = await sender(server, 'busy', 'busy@local.test', 7);
		const results = await Promise.all(
			Array.from({ length: 12 }, (_, i) =>
				send({ from: 'busy@local.test', to: [`c${i}a@local.test`, `c${i}b@remote.test`], subject: `c${i}`, text: 't' }, busy.key),
			),
		);
		const statuses = results.map((r) => r.status).sort();
		expect(statuses).toEqual([...Array(3).fill(200), ...Array(9).fill(402)]);
		expect(await credits(server, busy.key)).toBe(1);
		expect((await server.api('/api/outgoing-messages', { key: busy.key })).body).toHaveLength(3);
		expect(
			results
				.filter((r) => r.status === 200)
				.map((r) => r.body.creditsRemaining)
				.sort(),
		).toEqual([1, 3, 5]);
	});
});

describe('relay retries', () => {
	it('queues while the relay is down and delivers once it is up', async () => {
		const port = await freePort();
		const server = await startTestMailroom({
			domains: ['local.test'],
			relayUrl: `smtp://127.0.0.1:${port}`,
			relayRetryDelays: Array(200).fill(50),
		});
		try {
			const account = await sender(server, 'a', 'a@local.test', 2);
			const res = await server.api('/api/outgoing-messages', {
				method: 'POST',
				key: account.key,
				body: { from: 'a@local.test', to: 'later@remote.test', subject: 'when you are back', text: 't' },
			});
			expect(res.status).toBe(200);
			expect(res.body).toMatchObject({
				status: 'queued',
				creditsRemaining: 1,
				recipients: [{ status: 'queued', error: expect.stringMatching(/ECONNREFUSED|connect/i) }],
			});
			expect(res.body.lastError).toMatch(/ECONNREFUSED|connect/i);

			const relay = await startTestRelay({ port });
			try {
				const [mail] = await relay.waitFor(1);
				expect(mail.to).toEqual(['later@remote.test']);
				expect(mail.parsed.subject).toBe('when you are back');
				let listed: { status: string; attempts: number }[] = [];
				await waitFor(async () => {
					listed = (await server.api('/api/outgoing-messages', { key: account.key })).body;
					return listed[0].status === 'delivered';
				}, 'status delivered');
				expect(listed[0].attempts).toBeGreaterThan(1);
				expect(relay.received).toHaveLength(1);
			} finally {
				await relay.close();
			}
		} finally {
			await server.stop();
		}
	});

	it('retries after a 4xx reply and fails for good once the retries are used up', async () => {
		let deferrals = 2;
		const relay = await startTestRelay({
			refuse: (rcpt) => {
				if (rcpt.startsWith('never@')) return { code: 451, message: 'Try again later' };
				if (deferrals-- > 0) return { code: 451, message: 'Greylisted' };
				return undefined;
			},
		});
		const server = await startTestMailroom({ domains: ['local.test'], relayUrl: relay.url, relayRetryDelays: [20, 20, 20] });
		try {
			const account = await sender(server, 'a', 'a@local.test', 2);
			const post = (to: string) =>
				server.api('/api/outgoing-messages', {
					method: 'POST',
					key: account.key,
					body: { from: 'a@local.test', to, subject: to, text: 't' },
				});
			const grey = await post('grey@remote.test');
			expect(grey.body).toMatchObject({ status: 'queued', lastError: expect.stringMatching(/^451 .*Greylisted/) });
			await relay.waitFor(1);

			const never = await post('never@remote.test');
			expect(never.body.status).toBe('queued');
			let listed: { subject: string; status: string; attempts: number; lastError: string }[] = [];
			await waitFor(async () => {
				listed = (await server.api('/api/outgoing-messages', { key: account.key })).body;
				return listed.every((m) => m.status !== 'queued');
			}, 'retries to end');
			expect(listed.find((m) => m.subject === 'grey@remote.test')).toMatchObject({ status: 'delivered', attempts: 3 });
			expect(listed.find((m) => m.subject === 'never@remote.test')).toMatchObject({
				status: 'failed',
				attempts: 4,
				lastError: expect.stringMatching(/^gave up after 4 attempts: 451 /),
			});
			expect(relay.received).toHaveLength(1);
		} finally {
			await server.stop();
			await relay.close();
		}
	});

	it('keeps queued mail across a restart and delivers it after', async () => {
		const port = await freePort();
		const dataDir = tempDataDir();
		const config = { dataDir, domains: ['local.test'], relayUrl: `smtp://127.0.0.1:${port}`, relayRetryDelays: Array(50).fill(200) };
		const first = await startTestMailroom(config);
		const account = await sender(first, 'a', 'a@local.test', 1);
		const res = await first.api('/api/outgoing-messages', {
			method: 'POST',
			key: account.key,
			body: { from: 'a@local.test', to: 'restart@remote.test', subject: 'survives', text: 't' },
		});
		expect(res.body.status).toBe('queued');
		await first.stop({ removeData: false });

		const relay = await startTestRelay({ port });
		const second = await startTestMailroom(config);
		try {
			const [mail] = await relay.waitFor(1);
			expect(mail.parsed.subject).toBe('survives');
			expect(mail.parsed.messageId).toBe(`<${res.body._id}@local.test>`);
			await waitFor(
				async () => (await second.api('/api/outgoing-messages', { key: account.key })).body[0].status === 'delivered',
				'status delivered',
			);
		} finally {
			await second.stop();
			await relay.close();
		}
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
			const account = await sender(server, 'a', 'a@local.test', 1);
			const res = await server.api('/api/outgoing-messages', {
				method: 'POST',
				key: account.key,
				body: { from: 'a@local.test', to: 'signed@remote.test', subject: 'signed', text: 't' },
			});
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
			const account = await sender(server, 'a', 'a@local.test', 1);
			const res = await server.api('/api/outgoing-messages', {
				method: 'POST',
				key: account.key,
				body: { from: 'a@local.test', to: 'x@remote.test', subject: 's', text: 't' },
			});
			expect(res.body).toMatchObject({ status: 'failed', lastError: expect.stringMatching(/^gave up after 1 attempt: .*STARTTLS/) });
			expect(relay.received).toHaveLength(0);
		} finally {
			await server.stop();
			await relay.close();
		}
	});
});

describe('sending without a relay', () => {
	it('refuses external recipients with 422 before charging, and delivers local ones', async () => {
		const server = await startTestMailroom({ domains: ['local.test'] });
		try {
			const account = await sender(server, 'a', 'a@local.test', 2);
			const post = (to: string[]) =>
				server.api('/api/outgoing-messages', {
					method: 'POST',
					key: account.key,
					body: { from: 'a@local.test', to, subject: 's', text: 't' },
				});
			const refused = await post(['in@local.test', 'out@remote.test']);
			expect(refused.status).toBe(422);
			expect(refused.body.message).toMatch(/relay.*out@remote\.test/i);
			expect(await credits(server, account.key)).toBe(2);
			expect((await post(['in@local.test'])).body.status).toBe('delivered');
		} finally {
			await server.stop();
		}
	});

	it('refuses with 413 a message that would compose larger than --max-message-size, before charging', async () => {
		const server = await startTestMailroom({ domains: ['local.test'], maxMessageSize: 2000 });
		try {
			const account = await sender(server, 'a', 'a@local.test', 1);
			const post = (text: string) =>
				server.api('/api/outgoing-messages', {
					method: 'POST',
					key: account.key,
					body: { from: 'a@local.test', to: 'in@local.test', subject: 's', text },
				});
			const refused = await post('é'.repeat(1000));
			expect(refused.status).toBe(413);
			expect(refused.body).toEqual({
				error: 'Payload Too Large',
				message: expect.stringMatching(/^The composed message is \d+ bytes, more than the maximum message size of 2000 bytes$/),
			});
			expect(await credits(server, account.key)).toBe(1);
			expect((await server.api('/api/addresses/in@local.test/messages')).body).toEqual([]);
			expect((await post('short')).body.status).toBe('delivered');
		} finally {
			await server.stop();
		}
	});

	it('keeps all mail inside when it accepts every domain (no --domains, no relay)', async () => {
		const server = await startTestMailroom({ domains: [] });
		try {
			const account = await sender(server, 'a', 'a@anywhere.test', 1);
			const res = await server.api('/api/outgoing-messages', {
				method: 'POST',
				key: account.key,
				body: { from: 'a@anywhere.test', to: 'someone@gmail.com', subject: 's', text: 't' },
			});
			expect(res.body.recipients).toEqual([{ address: 'someone@gmail.com', route: 'local', status: 'delivered', error: null }]);
			expect((await server.api('/api/addresses/someone@gmail.com/messages')).body).toHaveLength(1);
		} finally {
			await server.stop();
		}
	});
});
