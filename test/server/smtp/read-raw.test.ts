import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { RawSmtp } from '../../helpers/raw-smtp';

const THRESHOLD = 64 * 1024;

/** A message of about `bytes` with CRLF lines of 76 characters. */
function message(to: string, bytes: number, extra = ''): string {
	const line = 'x'.repeat(76);
	return `From: a@sender.test\r\nTo: ${to}\r\nSubject: big\r\n\r\n${`${line}\r\n`.repeat(Math.ceil(bytes / 78))}${extra}`;
}

describe('receiving a message into the spool folder', () => {
	let server: TestMailroom;
	const spoolEntries = () => readdirSync(join(server.config.dataDir, 'spool'));
	const count = (inbox: string) => server.api(`/api/addresses/${inbox}/message-count`).then((response) => response.body.count);

	beforeAll(async () => {
		server = await startTestMailroom({ spoolThreshold: THRESHOLD, maxMessageSize: 1024 * 1024 });
	});
	afterAll(() => server.stop());

	/** Sends `raw` through a raw SMTP session (SIZE declared or not) and returns the reply to the end of DATA. */
	async function sendRaw(raw: string, declareSize: boolean): Promise<string> {
		const { client } = await RawSmtp.connect(server.smtpPort);
		try {
			for (const line of [
				'EHLO client.test',
				`MAIL FROM:<a@sender.test>${declareSize ? ` SIZE=${raw.length}` : ''}`,
				'RCPT TO:<raw@spool.test>',
				'DATA',
			]) {
				expect(await client.command(line)).toMatch(/^(250|354)/);
			}
			client.write(`${raw}\r\n.\r\n`);
			return await client.reply();
		} finally {
			client.close();
		}
	}

	it.each([true, false])('stores it when it passes the threshold (SIZE declared: %s) and leaves no file', async (declareSize) => {
		const before = await count('raw@spool.test');
		const raw = message('raw@spool.test', 3 * THRESHOLD);
		expect(await sendRaw(raw, declareSize)).toMatch(/^250 /);
		expect(await count('raw@spool.test')).toBe(before + 1);
		const list = await server.api('/api/addresses/raw@spool.test/messages');
		const stored = await server.api(`/api/raw/raw@spool.test/${list.body[0]._id}`);
		expect(stored.text).toBe(`${raw}\r\n`);
		expect(spoolEntries()).toEqual([]);
	});

	it.each([true, false])('refuses one too large with 552 and removes its file (SIZE declared: %s)', async (declareSize) => {
		const before = await count('raw@spool.test');
		// A SIZE above the limit is refused at MAIL FROM already; declare one below it and send more.
		const raw = message('raw@spool.test', 1024 * 1024 + THRESHOLD);
		const { client } = await RawSmtp.connect(server.smtpPort);
		for (const line of [
			'EHLO client.test',
			`MAIL FROM:<a@sender.test>${declareSize ? ` SIZE=${2 * THRESHOLD}` : ''}`,
			'RCPT TO:<raw@spool.test>',
			'DATA',
		]) {
			expect(await client.command(line)).toMatch(/^(250|354)/);
		}
		client.write(`${raw}\r\n.\r\n`);
		expect(await client.reply()).toMatch(/^552 /);
		client.close();
		expect(await count('raw@spool.test')).toBe(before);
		expect(spoolEntries()).toEqual([]);
	});

	it('refuses a bare LF past the threshold with 550 and removes its file', async () => {
		const before = await count('raw@spool.test');
		expect(await sendRaw(message('raw@spool.test', 2 * THRESHOLD, 'smuggled\n.\r\n'), false)).toBe('550 5.5.2 Error: bare <LF> received');
		expect(await count('raw@spool.test')).toBe(before);
		expect(spoolEntries()).toEqual([]);
	});

	it('answers 451 when the spool folder cannot be written, and keeps serving', async () => {
		const before = await count('raw@spool.test');
		const spoolDir = join(server.config.dataDir, 'spool');
		rmSync(spoolDir, { recursive: true });
		writeFileSync(spoolDir, 'not a folder');
		try {
			expect(await sendRaw(message('raw@spool.test', 2 * THRESHOLD), true)).toMatch(/^451 /);
			expect(await sendRaw(message('raw@spool.test', 2 * THRESHOLD), false)).toMatch(/^451 /);
			expect(await sendRaw(message('raw@spool.test', THRESHOLD / 2), false)).toMatch(/^250 /);
		} finally {
			rmSync(spoolDir);
			mkdirSync(spoolDir);
		}
		expect(await count('raw@spool.test')).toBe(before + 1);
	});

	it('removes the file of a message whose client goes away in the middle of DATA', async () => {
		const before = await count('raw@spool.test');
		const { client } = await RawSmtp.connect(server.smtpPort);
		await client.envelope('a@sender.test', ['raw@spool.test']);
		client.write(message('raw@spool.test', 4 * THRESHOLD));
		// Wait until the spool file exists, then drop the connection.
		for (let tries = 0; spoolEntries().length === 0 && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
		expect(spoolEntries()).toHaveLength(1);
		client.close();
		for (let tries = 0; spoolEntries().length > 0 && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
		expect(spoolEntries()).toEqual([]);
		expect(await count('raw@spool.test')).toBe(before);
	});
});
