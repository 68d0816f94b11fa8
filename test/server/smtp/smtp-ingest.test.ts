import nodemailer from 'nodemailer';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { inboxMessages, messageCount, onlyMessage as onlyInboxMessage, RECORD_FIELDS, stillAccepts, subjects } from '../../helpers/inboxes';
import { linesMessage, sendData, spoolEntries } from '../../helpers/spool';
import { enc } from '../../helpers/messages';
import { startTestMailroom, tempDataDir, type TestMailroom } from '../../helpers/mailroom';
import { RawSmtp } from '../../helpers/raw-smtp';
import { selfSignedCertificate } from '../../helpers/tls';
import { waitFor } from '../../helpers/webhook-receiver';

const CRLF = '\r\n';

/** A raw SMTP conversation, for replies nodemailer would hide. Returns every reply line. */
async function smtpDialogue(port: number, commands: string[]): Promise<string[]> {
	const { client, greeting } = await RawSmtp.connect(port);
	const replies = [greeting];
	for (const command of commands) replies.push(await client.command(command));
	client.close();
	return replies.flatMap((reply) => reply.split('\n'));
}

/** Sends RCPT TO for every address in one write (pipelining) and returns the replies in order. */
async function pipelinedRecipients(client: RawSmtp, recipients: string[]): Promise<string[]> {
	client.write(recipients.map((rcpt) => `RCPT TO:<${rcpt}>${CRLF}`).join(''));
	const replies: string[] = [];
	for (let i = 0; i < recipients.length; i++) replies.push(await client.reply());
	return replies;
}

/**
 * SMTP smuggling: a server that takes a bare CR or LF for a line ending ends DATA early at one
 * of these sequences, and runs what follows as new commands. smtp-server ends DATA only at
 * <CR><LF>.<CR><LF>, so what follows a probe is message content at worst; the default policy
 * refuses such messages outright (like Postfix 3.9), `accept` stores them whole.
 */
const END_OF_DATA_PROBES: [name: string, sequence: string, bare: 'LF' | 'CR'][] = [
	['<LF>.<LF>', '\n.\n', 'LF'],
	['<LF>.<CR><LF>', '\n.\r\n', 'LF'],
	['<CR><LF>.<LF>', '\r\n.\n', 'LF'],
	['<CR>.<CR>', '\r.\r', 'CR'],
	['<CR>.<CR><LF>', '\r.\r\n', 'CR'],
	['<CR><LF>.<CR>', '\r\n.\r', 'CR'],
	['<LF>.<CR>', '\n.\r', 'LF'],
	['<CR>.<LF>', '\r.\n', 'LF'],
];

/** A message whose content, after `sequence`, is a second SMTP transaction to `victim`. */
function smugglingMessage(inbox: string, victim: string, sequence: string): string {
	return [
		`From: attacker@sender.test\r\nTo: ${inbox}\r\nSubject: carrier\r\n\r\nfirst message`,
		sequence,
		`MAIL FROM:<ceo@bank.test>\r\nRCPT TO:<${victim}>\r\nDATA\r\n`,
		`From: ceo@bank.test\r\nTo: ${victim}\r\nSubject: smuggled\r\n\r\nsecond message\r\n.\r\n`,
	].join('');
}

/** Sends one raw DATA payload; returns the reply to it and the reply to a RSET sent right after. */
async function sendCarrier(server: TestMailroom, inbox: string, payload: string): Promise<{ reply: string; next: string }> {
	const { client } = await RawSmtp.connect(server.smtpPort);
	try {
		await client.envelope('attacker@sender.test', [inbox]);
		client.write(payload);
		const reply = await client.reply();
		// Were anything after the probe run as commands, its replies would come before RSET's.
		const next = await client.command('RSET');
		return { reply, next };
	} finally {
		client.close();
	}
}

describe('SMTP ingest', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom({ domains: ['example.test', 'other.test'], maxMessageSize: 64 * 1024 });
	});
	afterAll(() => server.stop());

	const onlyMessage = (inbox: string) => onlyInboxMessage(server, inbox);

	it('stores a record with exactly the fields and JSON types of spec 2.1', async () => {
		const info = await server.send({
			from: '"Ann Sender" <ann@sender.test>',
			to: 'Types@Example.test',
			subject: 'Field check',
			text: 'hello',
		});
		expect(info.response).toMatch(/^250 /);
		const record = await onlyMessage('types@example.test');
		expect(Object.keys(record).sort()).toEqual(RECORD_FIELDS);
		expect(record).toMatchObject({
			from: [{ address: 'ann@sender.test', name: 'Ann Sender' }],
			to: [{ address: 'types@example.test', name: '' }],
			cc: null,
			bcc: null,
			subject: 'Field check',
			savedBy: null,
			originalInbox: 'types@example.test',
			inbox: 'types@example.test',
			domain: 'example.test',
			attachments: null,
			ip: '127.0.0.1',
			via: '127.0.0.1',
			folder: 'inbox',
			labels: [],
			read: null,
			rtls: false,
			links: [],
		});
		expect(typeof record._id).toBe('string');
		expect(record.received).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
		expect(record.spam).toBeGreaterThanOrEqual(0);
		expect(record.spam).toBeLessThanOrEqual(1);
		expect(Number.isInteger(record.size)).toBe(true);
		expect(record.size).toBeGreaterThan(100);
	});

	it('keeps the exact size of the raw message and its source', async () => {
		const raw = 'From: a@sender.test\r\nTo: raw@example.test\r\nSubject: exact\r\n\r\nbody line\r\n';
		await server.send({ envelope: { from: 'a@sender.test', to: ['raw@example.test'] }, raw });
		const record = await onlyMessage('raw@example.test');
		expect(record.size).toBe(Buffer.byteLength(raw));
		expect(record.subject).toBe('exact');
	});

	it('stores one record per recipient inbox, each with its own id, and keeps cc and bcc', async () => {
		const info = await server.send({
			from: 'boss@sender.test',
			to: ['One@example.test', 'two@example.test'],
			cc: 'Carol <carol@other.test>',
			bcc: 'dave@example.test',
			subject: 'Team',
			text: 'hi all',
		});
		expect(info.accepted).toHaveLength(4);
		const records = await Promise.all(['one@example.test', 'two@example.test', 'carol@other.test', 'dave@example.test'].map(onlyMessage));
		expect(new Set(records.map((r) => r._id)).size).toBe(4);
		for (const record of records) {
			expect(record.inbox).toBe(record.originalInbox);
			expect(record.to).toEqual([
				{ address: 'one@example.test', name: '' },
				{ address: 'two@example.test', name: '' },
			]);
			expect(record.cc).toEqual([{ address: 'carol@other.test', name: 'Carol' }]);
		}
		expect(records[2].domain).toBe('other.test');
	});

	it('gives 552 for mail over the size limit and stores nothing of it', async () => {
		const replies = await smtpDialogue(server.smtpPort, ['EHLO client.test']);
		expect(replies.some((line) => /^250[- ]SIZE 65536$/.test(line))).toBe(true);
		await expect(
			server.send({ from: 'big@sender.test', to: 'big@example.test', subject: 'too big', text: 'x'.repeat(80 * 1024) }),
		).rejects.toMatchObject({ responseCode: 552 });
		expect(await inboxMessages(server, 'big@example.test')).toEqual([]);
	});

	it('gives 550 for a recipient in a domain that is not accepted', async () => {
		const replies = await smtpDialogue(server.smtpPort, [
			'EHLO client.test',
			'MAIL FROM:<a@sender.test>',
			'RCPT TO:<someone@elsewhere.test>',
		]);
		expect(replies[replies.length - 1]).toMatch(/^550 /);
		await expect(server.send({ from: 'a@sender.test', to: 'someone@elsewhere.test', text: 'x' })).rejects.toMatchObject({
			responseCode: 550,
		});
	});

	it('answers 250 only with the id of a stored record', async () => {
		const info = await server.send({ from: 'a@sender.test', to: 'ack@example.test', subject: 'ack', text: 'x' });
		const id = /stored as (\S+)/.exec(info.response)![1];
		expect((await onlyMessage('ack@example.test'))._id).toBe(id);
	});
});

describe('SMTP ingest over STARTTLS', () => {
	it('marks mail received over TLS with rtls: true', async () => {
		const { cert, key } = selfSignedCertificate(tempDataDir());
		const server = await startTestMailroom({ tlsCert: cert, tlsKey: key });
		try {
			const transport = nodemailer.createTransport({
				host: '127.0.0.1',
				port: server.smtpPort,
				requireTLS: true,
				tls: { rejectUnauthorized: false },
			});
			await transport.sendMail({ from: 'tls@sender.test', to: 'secure@any.test', subject: 'tls', text: 'over tls' });
			await server.send({ from: 'plain@sender.test', to: 'insecure@any.test', subject: 'plain', text: 'plain' });
			transport.close();
			expect((await inboxMessages(server, 'secure@any.test'))[0].rtls).toBe(true);
			expect((await inboxMessages(server, 'insecure@any.test'))[0].rtls).toBe(false);
		} finally {
			await server.stop();
		}
	});
});

describe('SMTP limits with the defaults', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom({ domains: ['limits.test'] });
	});
	afterAll(() => server.stop());

	it('takes 100 recipients per message, answers 452 4.5.3 to the rest of 3000, and stores the 100', async () => {
		const { client } = await RawSmtp.connect(server.smtpPort);
		try {
			expect(await client.command('EHLO client.test')).toMatch(/^250/);
			expect(await client.command('MAIL FROM:<bulk@sender.test>')).toMatch(/^250 /);
			const recipients = Array.from({ length: 3000 }, (_, i) => `r${i}@limits.test`);
			const replies = await pipelinedRecipients(client, recipients);
			expect(replies.slice(0, 100).every((reply) => reply.startsWith('250 '))).toBe(true);
			expect(new Set(replies.slice(100))).toEqual(new Set(['452 4.5.3 Error: too many recipients']));
			expect(await client.command('DATA')).toMatch(/^354 /);
			client.write(`From: bulk@sender.test${CRLF}Subject: bulk${CRLF}${CRLF}to many${CRLF}.${CRLF}`);
			const ids = /^250 OK: stored as (.+)$/.exec(await client.reply())![1].split(' ');
			expect(ids).toHaveLength(100);
		} finally {
			client.close();
		}
		expect(await subjects(server, 'r99@limits.test')).toEqual(['bulk']);
		expect(await subjects(server, 'r100@limits.test')).toEqual([]);
	});

	it('answers a command line over 16 KB with 421 and closes the connection', async () => {
		const { client } = await RawSmtp.connect(server.smtpPort);
		expect(await client.command(`EHLO ${'a'.repeat(20 * 1024)}`)).toBe('421 Error: Command line too long');
		await client.closed;
		await stillAccepts(server, 'after-long-command@limits.test');
	});

	it('closes a connection after 10 unrecognised commands with 421', async () => {
		const { client } = await RawSmtp.connect(server.smtpPort);
		const replies: string[] = [];
		for (let i = 0; i < 10; i++) replies.push(await client.command(`GARBAGE${i} \u0000\u00ff`));
		expect(replies.slice(0, 9).every((reply) => reply.startsWith('500 '))).toBe(true);
		expect(replies[9]).toBe('421 Error: too many unrecognized commands');
		await client.closed;
	});

	it('answers 5xx to very long and nested addresses within the command limit', async () => {
		const { client } = await RawSmtp.connect(server.smtpPort);
		try {
			expect(await client.command('EHLO client.test')).toMatch(/^250/);
			expect(await client.command('MAIL FROM:<a@sender.test>')).toMatch(/^250 /);
			for (const address of [
				`${'a'.repeat(10_000)}@limits.test`,
				`user@${'sub.'.repeat(3000)}limits.test`,
				`"${'\\"'.repeat(4000)}"@limits.test`,
			]) {
				expect(await client.command(`RCPT TO:<${address}>`)).toMatch(/^5\d\d /);
			}
			expect(await client.command(`RCPT TO:${'<'.repeat(5000)}user@limits.test${'>'.repeat(5000)}`)).toMatch(/^5\d\d /);
			// A source route (RFC 5321 obsolete syntax) is ignored however long: the mailbox counts.
			expect(await client.command(`RCPT TO:<@${'relay.test,@'.repeat(1000)}relay.test:routed@limits.test>`)).toMatch(/^250 /);
		} finally {
			client.close();
		}
		await stillAccepts(server, 'after-addresses@limits.test');
	});
});

describe('SMTP limits, configured', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom({ domains: ['limits.test'], smtpMaxRecipients: 3, smtpMaxClients: 3, smtpSocketTimeout: 400 });
	});
	afterAll(() => server.stop());

	it('applies --smtp-max-recipients', async () => {
		const { client } = await RawSmtp.connect(server.smtpPort);
		try {
			expect(await client.command('EHLO client.test')).toMatch(/^250/);
			expect(await client.command('MAIL FROM:<a@sender.test>')).toMatch(/^250 /);
			const replies = await pipelinedRecipients(client, ['a@limits.test', 'b@limits.test', 'c@limits.test', 'd@limits.test']);
			expect(replies.map((reply) => reply.slice(0, 3))).toEqual(['250', '250', '250', '452']);
		} finally {
			client.close();
		}
	});

	it('closes an idle (slowloris) connection with 421 after --smtp-socket-timeout, also in the middle of DATA', async () => {
		const idle = await RawSmtp.connect(server.smtpPort);
		expect(idle.greeting).toMatch(/^220 /);
		expect(await idle.client.reply()).toBe('421 Timeout - closing connection');
		await idle.client.closed;

		const { client } = await RawSmtp.connect(server.smtpPort);
		await client.envelope('slow@sender.test', ['slow@limits.test']);
		client.write(`From: slow@sender.test${CRLF}Subject: never finished${CRLF}`);
		expect(await client.reply()).toBe('421 Timeout - closing connection');
		await client.closed;
		expect(await subjects(server, 'slow@limits.test')).toEqual([]);
	});

	it('answers connections beyond --smtp-max-clients with 421 and serves again once one closes', async () => {
		const open = await Promise.all(Array.from({ length: 3 }, () => RawSmtp.connect(server.smtpPort)));
		expect(open.map((c) => c.greeting.slice(0, 3))).toEqual(['220', '220', '220']);
		const flood = await Promise.all(Array.from({ length: 30 }, () => RawSmtp.connect(server.smtpPort)));
		for (const { client, greeting } of flood) {
			expect(greeting).toMatch(/^421 .*Too many connected clients/);
			await client.closed;
		}
		for (const { client } of open) client.close();
		// The server learns of the closes asynchronously: connect until it greets again.
		for (;;) {
			const { client, greeting } = await RawSmtp.connect(server.smtpPort);
			client.close();
			if (greeting.startsWith('220 ')) break;
			expect(greeting).toMatch(/^421 /);
		}
		await stillAccepts(server, 'after-flood@limits.test');
	});
});

describe('SMTP connections per client address', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom({ domains: ['limits.test'], smtpMaxClientsPerIp: 2 });
	});
	afterAll(() => server.stop());

	it('answers a client address beyond --smtp-max-clients-per-ip with 421, serves other addresses, and that one again once it closes one', async () => {
		const open = await Promise.all([RawSmtp.connect(server.smtpPort), RawSmtp.connect(server.smtpPort)]);
		expect(open.map((c) => c.greeting.slice(0, 3))).toEqual(['220', '220']);
		const third = await RawSmtp.connect(server.smtpPort);
		expect(third.greeting).toBe('421 Too many connections from 127.0.0.1, try again later');
		await third.client.closed;

		const other = await RawSmtp.connect(server.smtpPort, '127.0.0.2');
		expect(other.greeting).toMatch(/^220 /);
		other.client.close();

		open[0].client.close();
		// The server learns of the close asynchronously: connect until it greets again.
		for (;;) {
			const { client, greeting } = await RawSmtp.connect(server.smtpPort);
			client.close();
			if (greeting.startsWith('220 ')) break;
			expect(greeting).toMatch(/^421 Too many connections from 127\.0\.0\.1/);
		}
		open[1].client.close();
		await stillAccepts(server, 'after-per-ip@limits.test');
	});
});

describe('SMTP smuggling, bare line endings rejected (default)', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom({ domains: ['smuggle.test'] });
	});
	afterAll(() => server.stop());

	it.each(END_OF_DATA_PROBES)('refuses a message with %s and stores neither part', async (_name, sequence, bare) => {
		const inbox = `carrier-${Buffer.from(sequence).toString('hex')}@smuggle.test`;
		const victim = `victim-${Buffer.from(sequence).toString('hex')}@smuggle.test`;
		const { reply, next } = await sendCarrier(server, inbox, smugglingMessage(inbox, victim, sequence));
		expect(reply).toBe(`550 5.5.2 Error: bare <${bare}> received`);
		expect(next).toMatch(/^250 /);
		expect(await inboxMessages(server, inbox)).toEqual([]);
		expect(await inboxMessages(server, victim)).toEqual([]);
	});

	it('refuses a bare LF anywhere in the message, even without a dot', async () => {
		const { reply } = await sendCarrier(server, 'lf@smuggle.test', 'From: a@sender.test\nSubject: unix\n\nline\n\r\n.\r\n');
		expect(reply).toBe('550 5.5.2 Error: bare <LF> received');
		expect(await inboxMessages(server, 'lf@smuggle.test')).toEqual([]);
	});

	it('still accepts the same message with CRLF line endings on the same connection', async () => {
		const { client } = await RawSmtp.connect(server.smtpPort);
		try {
			await client.envelope('a@sender.test', ['clean@smuggle.test']);
			client.write('From: a@sender.test\r\nSubject: unix\r\n\r\nl\n\r\n.\r\n');
			expect(await client.reply()).toMatch(/^550 5\.5\.2/);
			expect(await client.command('MAIL FROM:<a@sender.test>')).toMatch(/^250 /);
			expect(await client.command('RCPT TO:<clean@smuggle.test>')).toMatch(/^250 /);
			expect(await client.command('DATA')).toMatch(/^354 /);
			client.write('From: a@sender.test\r\nSubject: crlf\r\n\r\nline\r\n.\r\n');
			expect(await client.reply()).toMatch(/^250 OK: stored as \S+$/);
		} finally {
			client.close();
		}
		expect((await inboxMessages(server, 'clean@smuggle.test')).map((m) => m.subject)).toEqual(['crlf']);
	});
});

describe('SMTP smuggling, bare line endings accepted (MAILROOM_SMTP_BARE_LF=accept)', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom({ domains: ['smuggle.test'], smtpBareLf: 'accept' });
	});
	afterAll(() => server.stop());

	it.each(END_OF_DATA_PROBES)('stores a message with %s as one message, the smuggled part as its content', async (_name, sequence) => {
		const inbox = `carrier-${Buffer.from(sequence).toString('hex')}@smuggle.test`;
		const victim = `victim-${Buffer.from(sequence).toString('hex')}@smuggle.test`;
		const payload = smugglingMessage(inbox, victim, sequence);
		const { reply, next } = await sendCarrier(server, inbox, payload);
		const id = /^250 OK: stored as (\S+)$/.exec(reply)![1];
		expect(next).toMatch(/^250 /);
		const stored = await inboxMessages(server, inbox);
		expect(stored.map((m) => [m._id, m.subject])).toEqual([[id, 'carrier']]);
		expect(await inboxMessages(server, victim)).toEqual([]);
		const raw = await server.api(`/api/raw/${enc(inbox)}/${id}`);
		// Exactly as sent, without the final <CR><LF>.<CR><LF> (its <CR><LF> ends the last line).
		expect(raw.text).toBe(payload.slice(0, -3));
	});
});

describe('SMTP ingest of a spooled message', () => {
	const THRESHOLD = 64 * 1024;
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom({ spoolThreshold: THRESHOLD, maxMessageSize: 1024 * 1024 });
	});
	afterAll(() => server.stop());

	it('refuses a bare LF past the threshold with 550 and removes its file', async () => {
		const before = await messageCount(server, 'raw@spool.test');
		expect(await sendData(server, linesMessage('raw@spool.test', 2 * THRESHOLD, 'smuggled\n.\r\n'))).toBe(
			'550 5.5.2 Error: bare <LF> received',
		);
		expect(await messageCount(server, 'raw@spool.test')).toBe(before);
		expect(spoolEntries(server)).toEqual([]);
	});
});

describe('a client that disconnects in the middle of DATA', () => {
	it('is logged as a warning without a stack trace, and the part it sent is removed', async () => {
		const lines: string[] = [];
		const server = await startTestMailroom(
			{ spoolThreshold: 1024 },
			pino({ level: 'info', base: undefined }, { write: (line: string) => void lines.push(line) }),
		);
		try {
			const { client } = await RawSmtp.connect(server.smtpPort);
			await client.envelope('a@sender.test', ['gone@any.test']);
			// Past the spool threshold: the part received is in a spool file.
			client.write(`From: a@sender.test${CRLF}Subject: cut short${CRLF}${CRLF}${'z'.repeat(4096)}`);
			await waitFor(() => spoolEntries(server).length === 1, 'the spool file');
			client.close();
			const entries = () => lines.map((line) => JSON.parse(line) as { level: number; msg: string });
			const warning = await waitFor(
				() => entries().find((entry) => entry.msg === 'SMTP client disconnected in the middle of DATA'),
				'the warning',
			);
			expect(warning).toEqual({
				level: 40,
				time: expect.any(Number),
				ip: '127.0.0.1',
				msg: 'SMTP client disconnected in the middle of DATA',
			});
			expect(entries().filter((entry) => entry.level >= 50)).toEqual([]);
			expect(lines.join('')).not.toMatch(/"stack"|\n\s+at /);
			expect(spoolEntries(server)).toEqual([]);
			expect(await inboxMessages(server, 'gone@any.test')).toEqual([]);
		} finally {
			await server.stop();
		}
	});
});
