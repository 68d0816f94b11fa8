import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { ParsedMail } from 'mailroom-server/dist/mail/parsed-mail';
import { simpleParser } from 'mailparser';
import { PARSER_OPTIONS, parseMessage, toParsedMail } from 'mailroom-server/dist/parse/parse-message';
import { parseSpooled } from 'mailroom-server/dist/parse/parse-spooled';
import { FUZZ_RUNS, rawMessage } from '../../helpers/raw-messages';
import { tempDataDir } from '../../helpers/mailroom';

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

describe('a spooled message, fuzzed', () => {
	const dataDir = tempDataDir();
	afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

	it(`a message parses as simpleParser parses it, in memory and spooled (its parts streamed to files) (${FUZZ_RUNS} cases)`, async () => {
		let parsedBoth = 0;
		await fc.assert(
			fc.asyncProperty(rawMessage, async (raw) => {
				const dir = join(dataDir, 'spool', `fuzz-${parsedBoth}`);
				mkdirSync(dir, { recursive: true });
				const spoolPath = join(dir, 'message.eml');
				writeFileSync(spoolPath, raw);
				const settle = <T>(parse: Promise<T>) =>
					parse.then(
						(parsed) => ({ parsed }),
						(err: Error) => ({ failed: err.message }),
					);
				const [reference, inMemory, spooled] = await Promise.all([
					settle(simpleParser(raw, PARSER_OPTIONS).then((mail) => toParsedMail(mail))),
					settle(parseMessage(raw)),
					settle(parseSpooled({ spoolPath, byteLength: raw.length })),
				]);
				rmSync(dir, { recursive: true, force: true });
				expect('parsed' in inMemory).toBe('parsed' in reference);
				expect('parsed' in spooled).toBe('parsed' in reference);
				if (!('parsed' in reference) || !('parsed' in inMemory) || !('parsed' in spooled)) return;
				parsedBoth++;
				// Attachment content is a buffer in one and a file in the other; mailparser dates an empty Date header "now".
				const comparable = (parsed: ParsedMail) => ({
					...parsed,
					date: undefined,
					attachments: parsed.attachments.map((attachment) => ({ ...attachment, content: undefined })),
				});
				expect(comparable(inMemory.parsed)).toEqual(comparable(reference.parsed));
				expect(comparable(spooled.parsed)).toEqual(comparable(reference.parsed));
				expect(inMemory.parsed.attachments.map((attachment) => attachment.content)).toEqual(
					reference.parsed.attachments.map((attachment) => attachment.content),
				);
				for (const parsed of [inMemory.parsed, spooled.parsed]) {
					const [date, referenceDate] = [parsed.date, reference.parsed.date].map((date) => (date === null ? null : Date.parse(date)));
					if (date === null || referenceDate === null) expect(date).toBe(referenceDate);
					else expect(Math.abs(date - referenceDate)).toBeLessThan(1000);
				}
			}),
			{ numRuns: FUZZ_RUNS },
		);
		expect(parsedBoth).toBeGreaterThan(FUZZ_RUNS / 2);
	}, 90_000);
});
