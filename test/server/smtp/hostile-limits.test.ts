import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { RawSmtp } from '../../helpers/raw-smtp';
import { enc } from '../../helpers/messages';

const CRLF = '\r\n';

async function subjects(server: TestMailroom, inbox: string): Promise<string[]> {
	const list = await server.api(`/api/addresses/${enc(inbox)}/messages`);
	expect(list.status).toBe(200);
	return list.body.map((m: { subject: string }) => m.subject);
}

/** Sends RCPT TO for every address in one write (pipelining) and returns the replies in order. */
async function pipelinedRecipients(client: RawSmtp, recipients: string[]): Promise<string[]> {
	client.write(recipients.map((rcpt) => `RCPT TO:<${rcpt}>${CRLF}`).join(''));
	const replies: string[] = [];
	for (let i = 0; i < recipients.length; i++) replies.push(await client.reply());
	return replies;
}

async function stillAccepts(server: TestMailroom, inbox: string): Promise<void> {
	const info = await server.send({ from: 'a@sender.test', to: inbox, subject: 'after', text: 'still working' });
	expect(info.response).toMatch(/^250 /);
	expect(await subjects(server, inbox)).toEqual(['after']);
}

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

	it('stores messages whose headers are address-parser bombs', async () => {
		const bombs = [
			`To: ${Array.from({ length: 20_000 }, (_, i) => `"n${i}" <u${i}@limits.test>`).join(`,${CRLF} `)}`,
			`To: ${'group:'.repeat(10_000)}x@limits.test${';'.repeat(10_000)}`,
			`To: ${'('.repeat(100_000)}x@limits.test`,
			`To: ${'<'.repeat(100_000)}x@limits.test${'>'.repeat(100_000)}`,
			`To: ${'"'.repeat(100_000)}x@limits.test`,
		];
		for (const [i, header] of bombs.entries()) {
			const inbox = `bomb${i}@limits.test`;
			const raw = `From: bomber@sender.test${CRLF}${header}${CRLF}Subject: bomb ${i}${CRLF}${CRLF}boom${CRLF}`;
			const info = await server.send({ envelope: { from: 'bomber@sender.test', to: [inbox] }, raw });
			expect(info.response).toMatch(/^250 /);
			const list = await server.api(`/api/addresses/${enc(inbox)}/messages`);
			expect(list.body).toHaveLength(1);
			expect(list.body[0].size).toBe(Buffer.byteLength(raw));
		}
		await stillAccepts(server, 'after-bombs@limits.test');
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
