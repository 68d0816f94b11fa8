import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { RawSmtp } from '../../helpers/raw-smtp';
import { enc } from '../../helpers/messages';

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

async function inboxMessages(server: TestMailroom, inbox: string): Promise<{ _id: string; subject: string }[]> {
	const list = await server.api(`/api/addresses/${enc(inbox)}/messages`);
	expect(list.status).toBe(200);
	return list.body;
}

/** Sends one raw DATA payload; returns the reply to it and the reply to a RSET sent right after. */
async function sendRaw(server: TestMailroom, inbox: string, payload: string): Promise<{ reply: string; next: string }> {
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

describe('SMTP smuggling, bare line endings rejected (default)', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom({ domains: ['smuggle.test'] });
	});
	afterAll(() => server.stop());

	it.each(END_OF_DATA_PROBES)('refuses a message with %s and stores neither part', async (_name, sequence, bare) => {
		const inbox = `carrier-${Buffer.from(sequence).toString('hex')}@smuggle.test`;
		const victim = `victim-${Buffer.from(sequence).toString('hex')}@smuggle.test`;
		const { reply, next } = await sendRaw(server, inbox, smugglingMessage(inbox, victim, sequence));
		expect(reply).toBe(`550 5.5.2 Error: bare <${bare}> received`);
		expect(next).toMatch(/^250 /);
		expect(await inboxMessages(server, inbox)).toEqual([]);
		expect(await inboxMessages(server, victim)).toEqual([]);
	});

	it('refuses a bare LF anywhere in the message, even without a dot', async () => {
		const { reply } = await sendRaw(server, 'lf@smuggle.test', 'From: a@sender.test\nSubject: unix\n\nline\n\r\n.\r\n');
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
		const { reply, next } = await sendRaw(server, inbox, payload);
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
