import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { messageCount } from '../../helpers/inboxes';
import { linesMessage, sendData, spoolEntries } from '../../helpers/spool';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { RawSmtp } from '../../helpers/raw-smtp';

const THRESHOLD = 64 * 1024;

describe('receiving a message into the spool folder', () => {
	let server: TestMailroom;
	const count = () => messageCount(server, 'raw@spool.test');

	beforeAll(async () => {
		server = await startTestMailroom({ spoolThreshold: THRESHOLD, maxMessageSize: 1024 * 1024 });
	});
	afterAll(() => server.stop());

	it.each([true, false])('stores it when it passes the threshold (SIZE declared: %s) and leaves no file', async (declareSize) => {
		const before = await count();
		const raw = linesMessage('raw@spool.test', 3 * THRESHOLD);
		expect(await sendData(server, raw, declareSize ? raw.length : undefined)).toMatch(/^250 /);
		expect(await count()).toBe(before + 1);
		const list = await server.api<{ _id: string }[]>('/api/addresses/raw@spool.test/messages');
		const stored = await server.api(`/api/raw/raw@spool.test/${list.body[0]._id}`);
		expect(stored.text).toBe(`${raw}\r\n`);
		expect(spoolEntries(server)).toEqual([]);
	});

	it.each([true, false])('refuses one too large with 552 and removes its file (SIZE declared: %s)', async (declareSize) => {
		const before = await count();
		// A SIZE above the limit is refused at MAIL FROM already; declare one below it and send more.
		const raw = linesMessage('raw@spool.test', 1024 * 1024 + THRESHOLD);
		expect(await sendData(server, raw, declareSize ? 2 * THRESHOLD : undefined)).toMatch(/^552 /);
		expect(await count()).toBe(before);
		expect(spoolEntries(server)).toEqual([]);
	});

	it('answers 451 when the spool folder cannot be written, and keeps serving', async () => {
		const before = await count();
		const spoolDir = join(server.config.dataDir, 'spool');
		rmSync(spoolDir, { recursive: true });
		writeFileSync(spoolDir, 'not a folder');
		try {
			const raw = linesMessage('raw@spool.test', 2 * THRESHOLD);
			expect(await sendData(server, raw, raw.length)).toMatch(/^451 /);
			expect(await sendData(server, linesMessage('raw@spool.test', 2 * THRESHOLD))).toMatch(/^451 /);
			expect(await sendData(server, linesMessage('raw@spool.test', THRESHOLD / 2))).toMatch(/^250 /);
		} finally {
			rmSync(spoolDir);
			mkdirSync(spoolDir);
		}
		expect(await count()).toBe(before + 1);
	});

	it('removes the file of a message whose client goes away in the middle of DATA', async () => {
		const before = await count();
		const { client } = await RawSmtp.connect(server.smtpPort);
		await client.envelope('a@sender.test', ['raw@spool.test']);
		client.write(linesMessage('raw@spool.test', 4 * THRESHOLD));
		// Wait until the spool file exists, then drop the connection.
		for (let tries = 0; spoolEntries(server).length === 0 && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
		expect(spoolEntries(server)).toHaveLength(1);
		client.close();
		for (let tries = 0; spoolEntries(server).length > 0 && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
		expect(spoolEntries(server)).toEqual([]);
		expect(await count()).toBe(before);
	});
});
