import { execFileSync } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from '@jest/globals';
import { MailParser, type MessageText } from 'mailparser';
import { streamSpooledParts } from 'mailroom-server/dist/parse/spooled-parts';

/** A text part, then a 3 MB HTML part: the HTML is the part still streaming into its file when the input ends. */
const HTML = `<div>${'<p>A paragraph with some text in it &amp; more.</p>\r\n'.repeat(60_000)}</div>`;
const MESSAGE = Buffer.from(
	'From: a@sender.test\r\nSubject: both\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary="b"\r\n\r\n' +
		'--b\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n' +
		`${Buffer.from('Hello there\r\n').toString('base64')}\r\n` +
		`--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${HTML}\r\n--b--\r\n`,
);

/** The pieces a spool file is read in (see parseSpooled): fed whole at once, the parts would end before the input does. */
const CHUNK = 256 * 1024;
const pieces = (bytes: Buffer) =>
	Array.from({ length: Math.ceil(bytes.length / CHUNK) }, (_, i) => bytes.subarray(i * CHUNK, (i + 1) * CHUNK));

describe('streamSpooledParts', () => {
	const dir = mkdtempSync(join(tmpdir(), 'mailroom-spooled-parts-'));
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it('keeps the last part when its file is written slowly: the texts are put together once every part has ended', async () => {
		// The parts' files are pipes, read 4 KB a millisecond: a disk slower than the parse, so the HTML part is still
		// streaming when mailparser has read the whole message (where it used to put the texts together without it).
		const files = [0, 1].map((index) => join(dir, `part-${index}`));
		for (const file of files) execFileSync('mkfifo', [file]);
		const read = files.map(async (file) => {
			let bytes = 0;
			for await (const chunk of createReadStream(file, { highWaterMark: 4096 })) {
				bytes += (chunk as Buffer).length;
				await sleep(1);
			}
			return bytes;
		});

		const parser = new MailParser();
		const parts = streamSpooledParts(parser, (index) => files[index]);
		const texts: MessageText[] = [];
		parser.on('data', (data: MessageText) => texts.push(data));
		await pipeline(Readable.from(pieces(MESSAGE)), parser);
		await parts.written();

		expect(await Promise.all(read)).toEqual([Buffer.byteLength('Hello there\n'), Buffer.byteLength(HTML.replace(/\r\n/g, '\n'))]);
		expect(texts).toHaveLength(1);
		expect(typeof texts[0].html).toBe('string');
		expect(parts.segments(texts[0].text!)).toEqual([{ file: files[0] }]);
		expect(parts.segments(texts[0].html as string)).toEqual([{ file: files[1] }]);
	});

	it('ends the parse with the failure when a part cannot be written, and reports it', async () => {
		const parser = new MailParser();
		const parts = streamSpooledParts(parser, (index) => join(dir, 'missing', `part-${index}`));
		parser.on('data', () => {});
		await expect(pipeline(Readable.from(pieces(MESSAGE)), parser)).rejects.toThrow(/ENOENT/);
		await expect(parts.written()).rejects.toThrow(/ENOENT/);
	});
});
