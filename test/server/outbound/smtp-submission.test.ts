import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { OutgoingRecord } from 'mailroom-server/dist/schemas/outgoing';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { DeliveryEvent } from 'mailroom-server/dist/schemas/delivery-event';
import { dataDirs, startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { credits, listOutgoing, receivedCopy, RFC_5322_DATE, senderAccount } from '../../helpers/outgoing';
import { RawSmtp } from '../../helpers/raw-smtp';
import { startTestRelay, type TestRelay } from '../../helpers/smtp-relay';
import { pythonSmtplib, swaks } from '../../helpers/smtp-clients';
import { verifyDkim } from '../../helpers/dkim';
import { WebhookReceiver, waitFor } from '../../helpers/webhook-receiver';
import { subjects } from '../../helpers/inboxes';
import { listen } from '../../helpers/websocket';

const CRLF = '\r\n';
const plain = (user: string, password: string) => Buffer.from(`\0${user}\0${password}`).toString('base64');

/** The id in a submission's 250 reply. */
const queuedId = (reply: string) => /^250 OK: queued as (\S+)$/.exec(reply.trim())![1];

/** A nodemailer transport that logs in with an API key, as an app configured with SMTP credentials does. */
const submitter = (server: TestMailroom, key: string) =>
	nodemailer.createTransport({
		host: '127.0.0.1',
		port: server.smtpPort,
		secure: false,
		ignoreTLS: true,
		auth: { user: 'app', pass: key },
	});

/** The record of outgoing message `id` once no recipient is pending any more. */
async function settled(server: TestMailroom, key: string, id: string): Promise<OutgoingRecord> {
	return waitFor(async () => {
		const record = (await listOutgoing(server, key)).find((outgoing) => outgoing._id === id);
		return record && record.recipients.every((recipient) => recipient.status !== 'queued') ? record : undefined;
	}, `outgoing message ${id} to be settled`);
}

/** A raw session authenticated with `key`, after EHLO. */
async function keySession(server: TestMailroom, key: string): Promise<RawSmtp> {
	const { client } = await RawSmtp.connect(server.smtpPort);
	await client.command('EHLO client.test');
	expect(await client.command(`AUTH PLAIN ${plain('app', key)}`)).toBe('235 Authentication successful');
	return client;
}

/** Submits `raw` in a session authenticated with `key`; the reply to each step, up to the end of DATA. */
async function submitRaw(server: TestMailroom, key: string, from: string, to: string[], raw: string): Promise<string[]> {
	const client = await keySession(server, key);
	try {
		const replies = [await client.command(`MAIL FROM:<${from}>`)];
		for (const rcpt of to) replies.push(await client.command(`RCPT TO:<${rcpt}>`));
		if (replies.some((reply) => !reply.startsWith('250'))) return replies;
		replies.push(await client.command('DATA'));
		client.write(`${raw}${CRLF}.${CRLF}`);
		replies.push(await client.reply());
		return replies;
	} finally {
		client.close();
	}
}

describe('SMTP submission with an API key: sent as POST /api/outgoing-messages sends', () => {
	const newDataDir = dataDirs();
	let relay: TestRelay;
	let server: TestMailroom;
	let alice: { id: string; key: string };
	let dkimKey: ReturnType<typeof generateKeyPairSync>;
	beforeAll(async () => {
		relay = await startTestRelay({
			refuse: (rcpt) => (rcpt.startsWith('bounce@') ? { code: 550, message: 'No such user here' } : undefined),
		});
		const keyFile = join(newDataDir(), 'dkim.pem');
		dkimKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
		writeFileSync(keyFile, dkimKey.privateKey.export({ type: 'pkcs8', format: 'pem' }));
		server = await startTestMailroom({
			domains: ['local.test'],
			relayUrl: relay.url,
			relayRetryDelays: [50, 50, 50],
			testDomain: 'tests.example',
			...{ dkimDomain: 'local.test', dkimSelector: 'mail2026', dkimKeyFile: keyFile },
		});
		alice = await senderAccount(server, 'alice', 'alice@local.test', 1000);
	});
	afterAll(async () => {
		await server.stop();
		await relay.close();
	});

	it('sends the raw message as the client wrote it: local copies, the relay with DKIM, Sent mail, one credit per recipient', async () => {
		const before = await credits(server, alice.key);
		const relayedBefore = relay.received.length;
		const raw = [
			'From: Alice <alice@local.test>',
			'To: Bob <bob@local.test>, carol@remote.test',
			'Cc: dan@remote.test',
			'Subject: =?UTF-8?Q?Quarterly_r=C3=A9port?=',
			'Date: Tue, 24 Nov 2026 10:00:00 +0000',
			'Message-ID: <kept-as-is@alice.example>',
			'X-Custom:   spacing kept',
			'',
			'Body line one',
			'',
			'.a line that starts with a dot',
			'',
		].join(CRLF);
		const transport = submitter(server, alice.key);
		const info = (await transport.sendMail({
			envelope: { from: 'alice@local.test', to: ['bob@local.test', 'carol@remote.test', 'dan@remote.test', 'eve@remote.test'] },
			raw,
		})) as { response: string };
		transport.close();
		const id = queuedId(info.response);

		const record = await settled(server, alice.key, id);
		expect(record).toMatchObject({
			from: 'alice@local.test',
			to: ['bob@local.test', 'carol@remote.test'],
			cc: ['dan@remote.test'],
			bcc: ['eve@remote.test'],
			subject: 'Quarterly réport',
			inReplyTo: null,
			status: 'delivered',
		});
		expect(record.recipients.map(({ address, field, route }) => [address, field, route])).toEqual([
			['bob@local.test', 'to', 'local'],
			['carol@remote.test', 'to', 'relay'],
			['dan@remote.test', 'cc', 'relay'],
			['eve@remote.test', 'bcc', 'relay'],
		]);
		expect(await credits(server, alice.key)).toBe(before - 4);

		// One relay transaction per recipient, each from its return path (VERP).
		const relayedNow = (await relay.waitFor(relayedBefore + 3)).slice(relayedBefore);
		expect(relayedNow.map((mail) => [mail.from, mail.to])).toEqual(
			record.recipients.filter((r) => r.route === 'relay').map((r) => [r.returnPath, [r.address]]),
		);
		const [relayed] = relayedNow;
		expect(verifyDkim(relayed.raw, dkimKey.publicKey)).toMatchObject({ d: 'local.test', s: 'mail2026' });
		// Byte for byte what the client sent, the signature put in front.
		expect(relayed.raw.replace(/^DKIM-Signature:.*?\r\n(?![ \t])/s, '')).toBe(raw);
		const local = await receivedCopy(server, 'bob@local.test');
		expect(local.raw.toString()).toBe(raw);
		expect(local.record).toMatchObject({ subject: 'Quarterly réport', inbox: 'bob@local.test' });
	});

	it('adds a Message-ID and a Date to a message without them, and removes its Bcc and Resent-Bcc headers (swaks)', async () => {
		const relayedBefore = relay.received.length;
		const run = await swaks(server.smtpPort, [
			...['--auth', 'PLAIN', '--auth-user', 'alice', '--auth-password', alice.key],
			...['--from', 'alice@local.test', '--to', 'frank@local.test,grace@remote.test,hidden@remote.test'],
			...[
				'--data',
				'From: alice@local.test\nTo: frank@local.test, grace@remote.test\nBcc: hidden@remote.test,\n  hidden2@remote.test\nResent-Bcc: resent-hidden@remote.test\nSubject: bare\n\nno id, no date\n',
			],
		]);
		expect(run.code).toBe(0);
		const id = /<- {2}250 OK: queued as (\S+)/.exec(run.output)![1];
		const record = await settled(server, alice.key, id);
		expect(record.recipients.map(({ address, field }) => [address, field])).toEqual([
			['frank@local.test', 'to'],
			['grace@remote.test', 'to'],
			['hidden@remote.test', 'bcc'],
		]);
		const [relayed] = (await relay.waitFor(relayedBefore + 1)).slice(relayedBefore);
		const local = await receivedCopy(server, 'frank@local.test');
		for (const copy of [relayed.raw, local.raw.toString()]) {
			expect(copy).toMatch(new RegExp(`^Message-ID: <${id}@local\\.test>\\r\\n`, 'm'));
			expect(/^Date: (.*)\r\n/m.exec(copy)![1]).toMatch(RFC_5322_DATE);
			expect(copy).not.toMatch(/^(resent-)?bcc:|hidden/im);
			expect(copy).toMatch(/\r\nSubject: bare\r\n\r\nno id, no date\r\n/);
		}
		expect(local.parsed.messageId).toBe(`<${id}@local.test>`);
		expect(Math.abs(local.parsed.date!.getTime() - Date.parse(record.sent))).toBeLessThan(1000);
	});

	it('sends what Python smtplib.login and send_message send, Bcc recipients in the envelope only', async () => {
		const relayedBefore = relay.received.length;
		const result = await pythonSmtplib(server.smtpPort, {
			...{ user: 'alice@local.test', password: alice.key, from: 'alice@local.test' },
			...{ to: ['heidi@local.test'], cc: ['ivan@remote.test'], bcc: ['judy@local.test', 'ken@remote.test'] },
			...{ subject: 'from a python app', body: 'hello from smtplib' },
		});
		expect(result).toEqual({ ok: true });
		const [sent] = await listOutgoing(server, alice.key);
		expect(sent).toMatchObject({ subject: 'from a python app', to: ['heidi@local.test'], cc: ['ivan@remote.test'] });
		expect(sent.bcc.sort()).toEqual(['judy@local.test', 'ken@remote.test']);
		const relayed = (await relay.waitFor(relayedBefore + 2)).slice(relayedBefore);
		expect(relayed.flatMap((mail) => mail.to).sort()).toEqual(['ivan@remote.test', 'ken@remote.test']);
		for (const inbox of ['heidi@local.test', 'judy@local.test']) {
			const copy = await receivedCopy(server, inbox);
			expect(copy.parsed.text?.trim()).toBe('hello from smtplib');
			expect(copy.raw.toString()).not.toMatch(/judy|ken@/);
		}
	});

	it('answers mail submitted to the test addresses as mail sent through the API: reports to the return path, statuses, events', async () => {
		const receiver = new WebhookReceiver();
		await receiver.listen();
		const socket = await listen(server, `key=${alice.key}&scope=account`);
		try {
			const subscribed = await server.api('/api/event-webhooks', {
				method: 'POST',
				key: alice.key,
				body: { url: `${receiver.url}/events`, events: ['delivered', 'deferred', 'bounced', 'complained'] },
			});
			expect(subscribed.status).toBe(201);
			const transport = submitter(server, alice.key);
			const to = ['bounce', 'defer', 'complaint', 'anyone'].map((name) => `${name}@tests.example`);
			const info = (await transport.sendMail({ from: 'alice@local.test', to, subject: 'testing my bounce handling', text: 'hi' })) as {
				response: string;
			};
			transport.close();
			const id = queuedId(info.response);

			const record = await waitFor(async () => {
				const sent = (await listOutgoing(server, alice.key)).find((outgoing) => outgoing._id === id)!;
				return sent.recipients.map((r) => r.status).join() === 'bounced,deferred,complained,delivered' ? sent : undefined;
			}, 'the test addresses to answer');
			expect(record.recipients.map(({ address, route, statusCode }) => [address, route, statusCode])).toEqual([
				['bounce@tests.example', 'test', '5.1.1'],
				['defer@tests.example', 'test', '4.2.0'],
				['complaint@tests.example', 'test', null],
				['anyone@tests.example', 'test', null],
			]);
			// Each report came back to its recipient's return path: kept in alice's inbox, linked from the recipient.
			for (const recipient of record.recipients.slice(0, 3)) {
				const report = await server.api<MessageRecord>(`/api/addresses/alice%40local.test/messages/${recipient.bounceMessageId}`, {
					key: alice.key,
				});
				expect(report.body.originalInbox).toBe(recipient.returnPath);
			}
			const expected = [
				...to.map((address) => [address, 'delivered']),
				['bounce@tests.example', 'bounced'],
				['defer@tests.example', 'deferred'],
				['complaint@tests.example', 'complained'],
			];
			const heard = await waitFor(() => {
				const events = socket.frames.flatMap(({ event }) => (event?.sentMessageId === id ? [[event.recipient, event.type]] : []));
				return events.length >= expected.length ? events : undefined;
			}, 'the events over the websocket');
			expect(heard).toEqual(expect.arrayContaining(expected));
			expect(heard).toHaveLength(expected.length);
			const posted = await waitFor(() => {
				const events = receiver.requests.map((r) => JSON.parse(r.body) as DeliveryEvent).filter((e) => e.sentMessageId === id);
				return events.length >= expected.length ? events.map((e) => [e.recipient, e.type]) : undefined;
			}, 'the events posted');
			expect(posted).toEqual(expect.arrayContaining(expected));
			// Bounced and complaining recipients are suppressed: the next submission to them is refused at the end of DATA.
			const again = await submitRaw(server, alice.key, 'alice@local.test', ['bounce@tests.example'], 'From: alice@local.test\r\n\r\nagain');
			expect(again.at(-1)).toMatch(
				/^550 5\.7\.1 Not sent: bounce@tests\.example is on your suppression list: it bounced .*\. Take the address off the list with DELETE \/api\/suppressions\/\{address\}$/,
			);
			expect(relay.received.some((mail) => mail.to.some((address) => address.endsWith('@tests.example')))).toBe(false);
		} finally {
			socket.socket.close();
			await receiver.close();
		}
	});

	it('refuses a sender that is not the account: MAIL FROM with 553, the From header with 550, charging nothing', async () => {
		const before = await credits(server, alice.key);
		const client = await keySession(server, alice.key);
		expect(await client.command('MAIL FROM:<mallory@local.test>')).toBe(
			'553 5.7.1 mallory@local.test is not an address of your account: send from one of its private addresses or an address in one of its domains',
		);
		expect(await client.command('MAIL FROM:<>')).toBe('553 5.1.7 <> is not a valid sender address');
		client.close();

		const forged = ['From: Boss <boss@local.test>', 'To: x@local.test', 'Subject: forged', '', 'x'].join(CRLF);
		expect((await submitRaw(server, alice.key, 'alice@local.test', ['x@local.test'], forged)).at(-1)).toBe(
			'550 5.7.1 boss@local.test is not an address of your account: send from one of its private addresses or an address in one of its domains',
		);
		const twoAuthors = ['From: alice@local.test, boss@local.test', 'To: x@local.test', '', 'x'].join(CRLF);
		expect((await submitRaw(server, alice.key, 'alice@local.test', ['x@local.test'], twoAuthors)).at(-1)).toMatch(
			/^550 5\.7\.1 boss@local\.test /,
		);
		const noFrom = ['To: x@local.test', 'Subject: anonymous', '', 'x'].join(CRLF);
		expect((await submitRaw(server, alice.key, 'alice@local.test', ['x@local.test'], noFrom)).at(-1)).toBe(
			'554 5.6.0 The message has no From headers; it needs exactly one, naming its sender',
		);
		const twoFroms = ['From: alice@local.test', 'From: boss@local.test', 'To: x@local.test', '', 'x'].join(CRLF);
		expect((await submitRaw(server, alice.key, 'alice@local.test', ['x@local.test'], twoFroms)).at(-1)).toBe(
			'554 5.6.0 The message has 2 From headers; it needs exactly one, naming its sender',
		);
		expect(await credits(server, alice.key)).toBe(before);
		expect(await subjects(server, 'x@local.test')).toEqual([]);
	});

	it('reads From, Sender, Resent-From and Resent-Sender as RFC 5322 does: a field another parser could read as someone else is refused', async () => {
		const before = await credits(server, alice.key);
		const submit = async (...header: string[]) =>
			(await submitRaw(server, alice.key, 'alice@local.test', ['x@local.test'], [...header, 'To: x@local.test', '', 'x'].join(CRLF))).at(
				-1,
			);
		// Folded, without a comma: one mailbox named "boss@local.test" to a lenient parser, two mailboxes to Python's.
		expect(await submit('From: alice@local.test', ' boss@local.test')).toBe(
			'554 5.6.0 The From header "alice@local.test boss@local.test" is not a list of addresses as RFC 5322 writes them ' +
				'(a comma between addresses, a display name before <address>)',
		);
		expect(await submit('From: alice@local.test boss@local.test')).toMatch(/^554 5\.6\.0 The From header /);
		expect(await submit('From: alice@local.test', 'Sender: alice@local.test, boss@local.test')).toMatch(
			/^554 5\.6\.0 The Sender header "alice@local.test, boss@local.test" is not one address as RFC 5322 writes it/,
		);
		for (const field of ['Sender', 'Resent-From', 'Resent-Sender']) {
			expect(await submit('From: alice@local.test', `${field}: Boss <boss@local.test>`)).toBe(
				'550 5.7.1 boss@local.test is not an address of your account: send from one of its private addresses or an address in one of its domains',
			);
		}
		expect(await submit('From: undisclosed:;')).toBe('554 5.6.0 The From header names no address');
		expect(await credits(server, alice.key)).toBe(before);
		expect(await subjects(server, 'x@local.test')).toEqual([]);

		// The account's own addresses, in any spelling RFC 5322 reads (obsolete phrase, encoded word, comment), go out.
		const sent = await submit(
			'From: Alice J. Example <alice@local.test>',
			'Sender: =?utf-8?q?Alice_=C3=89?= <alice@local.test>',
			'Resent-From: alice@local.test (Alice)',
			'Subject: own addresses',
		);
		expect(sent).toMatch(/^250 /);
		expect(await credits(server, alice.key)).toBe(before - 1);
	});

	it('answers 554 5.7.0 when the credits do not cover every recipient, sending and charging nothing', async () => {
		const poor = await senderAccount(server, 'poor', 'poor@local.test', 2);
		const relayedBefore = relay.received.length;
		const raw = ['From: poor@local.test', 'To: p1@local.test, p2@remote.test', 'Cc: p3@local.test', 'Subject: too many', '', 'x'].join(
			CRLF,
		);
		const replies = await submitRaw(server, poor.key, 'poor@local.test', ['p1@local.test', 'p2@remote.test', 'p3@local.test'], raw);
		const refusal = (recipients: number) =>
			`5.7.0 You must purchase more outgoing message credits before you can send: this message needs ${recipients} (one per recipient) ` +
			'and account "poor" has 2. An administrator adds credits with: mailroom credits add "poor" <n>';
		expect(replies.at(-1)).toBe(`554 ${refusal(3)}`);
		expect(await credits(server, poor.key)).toBe(2);
		expect(await listOutgoing(server, poor.key)).toEqual([]);
		expect(await subjects(server, 'p1@local.test')).toEqual([]);
		expect(relay.received).toHaveLength(relayedBefore);
		const python = await pythonSmtplib(server.smtpPort, {
			...{ user: 'poor', password: poor.key, from: 'poor@local.test', to: ['p1@local.test', 'p2@local.test', 'p3@local.test'] },
			...{ subject: 's', body: 'b' },
		});
		expect(python).toEqual({
			ok: false,
			error: 'SMTPDataError',
			code: 554,
			message: refusal(3),
		});
	});

	it('takes at most 50 recipients per message, as the API does: 452 4.5.3 for the rest', async () => {
		const client = await keySession(server, alice.key);
		expect(await client.command('MAIL FROM:<alice@local.test>')).toMatch(/^250 /);
		const replies: string[] = [];
		for (let i = 0; i < 52; i++) replies.push(await client.command(`RCPT TO:<r${i}@remote.test>`));
		expect(replies.slice(0, 50).every((reply) => reply.startsWith('250'))).toBe(true);
		expect(replies.slice(50)).toEqual(['452 4.5.3 Error: too many recipients', '452 4.5.3 Error: too many recipients']);
		expect(await client.command('RCPT TO:<not an address>')).toMatch(/^5\d\d /);
		client.close();
	});
});

describe('SMTP submission without a relay', () => {
	let server: TestMailroom;
	let alice: { id: string; key: string };
	beforeAll(async () => {
		server = await startTestMailroom({ domains: ['local.test'], maxMessageSize: 4096 });
		alice = await senderAccount(server, 'alice', 'alice@local.test', 10);
	});
	afterAll(() => server.stop());

	it('refuses a recipient of another domain at RCPT TO with 550 5.7.1, and delivers to local ones', async () => {
		const client = await keySession(server, alice.key);
		expect(await client.command('MAIL FROM:<alice@local.test>')).toMatch(/^250 /);
		expect(await client.command('RCPT TO:<far@remote.test>')).toBe(
			'550 5.7.1 No SMTP relay is configured (MAILROOM_RELAY_URL), so mail can go only to local domains; not local: far@remote.test',
		);
		expect(await client.command('RCPT TO:<near@local.test>')).toMatch(/^250 /);
		expect(await client.command('DATA')).toMatch(/^354 /);
		client.write(`From: alice@local.test${CRLF}To: near@local.test${CRLF}Subject: local only${CRLF}${CRLF}x${CRLF}.${CRLF}`);
		const id = queuedId(await client.reply());
		client.close();
		expect(await settled(server, alice.key, id)).toMatchObject({ status: 'delivered', to: ['near@local.test'] });
		expect(await subjects(server, 'near@local.test')).toEqual(['local only']);
	});

	it('refuses a message over --max-message-size with 552, charging nothing', async () => {
		const before = await credits(server, alice.key);
		const raw = ['From: alice@local.test', 'To: big@local.test', 'Subject: big', '', 'x'.repeat(5000)].join(CRLF);
		expect((await submitRaw(server, alice.key, 'alice@local.test', ['big@local.test'], raw)).at(-1)).toBe(
			'552 Message exceeds the maximum size of 4096 bytes',
		);
		// Within the limit as sent, over it once the Message-ID and Date are added.
		const edge = ['From: alice@local.test', 'To: big@local.test', '', 'x'.repeat(4000)].join(CRLF);
		expect((await submitRaw(server, alice.key, 'alice@local.test', ['big@local.test'], edge)).at(-1)).toMatch(
			/^552 5\.3\.4 The composed message is \d+ bytes, more than the maximum message size of 4096 bytes$/,
		);
		expect(await credits(server, alice.key)).toBe(before);
	});
});
