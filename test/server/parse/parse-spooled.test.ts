import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseMessage } from 'mailroom-server/dist/parse/parse-message';
import { parseSpooled } from 'mailroom-server/dist/parse/parse-spooled';

const MB = 1024 * 1024;

describe('a large body of a spooled message', () => {
	const dir = mkdtempSync(join(tmpdir(), 'mailroom-parse-spooled-'));
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	/** A 2 MB single-part text message with `words` at the start or the end of its body, parsed from a spool file. */
	function message(words: string, at: 'start' | 'end') {
		const filler = 'nothing to see here, only plain words.\r\n'.repeat((2 * MB) / 40);
		const body = at === 'start' ? `${words}\r\n${filler}` : `${filler}${words}\r\n`;
		const raw = Buffer.from(
			`From: a@sender.test\r\nSubject: Hello\r\nMessage-ID: <m@sender.test>\r\nDate: Sun, 22 Nov 2026 10:00:00 +0000\r\n\r\n${body}`,
		);
		const folder = join(dir, `${at}-${words.length}`);
		mkdirSync(folder);
		writeFileSync(join(folder, 'message.eml'), raw);
		return { raw, spooled: { spoolPath: join(folder, 'message.eml'), byteLength: raw.length } };
	}

	it('stays a file, and the spam rules read its first megabyte only', async () => {
		const early = message('free money, act now', 'start');
		const late = message('free money, act now', 'end');
		const [earlyParsed, lateParsed] = await Promise.all([parseSpooled(early.spooled), parseSpooled(late.spooled)]);
		expect(typeof earlyParsed.text).toBe('object');
		expect(earlyParsed.spam).toBe(0.25);
		expect(lateParsed.spam).toBe(0);
		// Parsed in memory (a message under the spool threshold), the whole text is read.
		expect((await parseMessage(late.raw)).spam).toBe(0.25);
	});
});
