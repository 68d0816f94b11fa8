import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from '@jest/globals';
import { parseMimeStream, type PartOutputs } from 'mailroom-server/dist/parse/mime-stream';

/** A text part, then a 3 MB HTML part: the HTML is the part still streaming into its file when the input ends. */
const HTML = `<div>${'<p>A paragraph with some text in it &amp; more.</p>\r\n'.repeat(60_000)}</div>`;
const MESSAGE = Buffer.from(
	'From: a@sender.test\r\nSubject: both\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary="b"\r\n\r\n' +
		'--b\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n' +
		`${Buffer.from('Hello there\r\n').toString('base64')}\r\n` +
		`--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${HTML}\r\n--b--\r\n`,
);

/** The pieces a spool file is read in (see parseSpooled). */
const CHUNK = 256 * 1024;
const pieces = (bytes: Buffer) =>
	Array.from({ length: Math.ceil(bytes.length / CHUNK) }, (_, i) => bytes.subarray(i * CHUNK, (i + 1) * CHUNK));

/** Each text part into files[index]; attachments nowhere. */
const toFiles = (files: (index: number) => string): PartOutputs<string, null> => ({
	text: (index) => ({ stream: createWriteStream(files(index)), result: () => files(index) }),
	attachment: () => ({ stream: new Writable({ write: (_chunk, _encoding, done) => done() }), result: () => null }),
});

describe('parseMimeStream', () => {
	const dir = mkdtempSync(join(tmpdir(), 'mailroom-mime-stream-'));
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it('puts the texts together once every part is written, however slowly its output takes it', async () => {
		// The parts' files are pipes, read 4 KB a millisecond: a disk slower than the parse, so the HTML part is still
		// streaming when the whole message has been read.
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

		const parsed = await parseMimeStream(
			Readable.from(pieces(MESSAGE)),
			toFiles((index) => files[index]),
		);

		expect(await Promise.all(read)).toEqual([Buffer.byteLength('Hello there\n'), Buffer.byteLength(HTML.replace(/\r\n/g, '\n'))]);
		expect(parsed.text).toEqual([files[0]]);
		expect(parsed.html).toEqual([files[1]]);
	});

	it('fails the parse when a part cannot be written', async () => {
		await expect(
			parseMimeStream(
				Readable.from(pieces(MESSAGE)),
				toFiles((index) => join(dir, 'missing', `part-${index}`)),
			),
		).rejects.toThrow(/ENOENT/);
	});

	it('fails the parse as mailparser does when the splitter gives up (too many parts)', async () => {
		const parts = Array.from({ length: 1100 }, () => '--b\r\nContent-Type: text/plain\r\n\r\nx\r\n').join('');
		const raw = Buffer.from(`Content-Type: multipart/mixed; boundary="b"\r\n\r\n${parts}--b--\r\n`);
		await expect(
			parseMimeStream(
				Readable.from([raw]),
				toFiles((index) => join(dir, `many-${index}`)),
			),
		).rejects.toThrow(/child nodes/);
	});
});
