import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
// libqp 2.1.2, the one mailsplit uses, ships no types; the server declares them (server/parse/mime-libraries.d.ts).
import { decode } from 'libqp';
import { decode as linearDecode } from 'libqp3';
import { QuotedPrintableDecoder } from 'mailroom-server/dist/parse/streaming-quoted-printable';
import { cut, cuts } from '../../helpers/cuts';

/** Quoted-printable with what makes cutting it hard: escapes, soft line breaks, trailing blanks, stray "=" and CRs. */
const qpText = fc
	.array(
		fc.oneof(
			fc.constantFrom(
				'=',
				'=3D',
				'=E9',
				'=e9',
				'=\r\n',
				'=\n',
				'=\r',
				' ',
				'\t',
				'  \r\n',
				'\r\n',
				'\n',
				'\r',
				'=ZZ',
				'=4',
				'0',
				'A',
				'= \r\n',
				'=\t\n',
				' \r',
			),
			fc.string({ maxLength: 8 }),
		),
		{ maxLength: 60 },
	)
	.map((pieces) => Buffer.from(pieces.join(''), 'latin1'));

/** Writes `input` in pieces cut at `at` (no empty ones) and collects what the decoder gives. */
function streamDecode(input: Buffer, at: number[]): Promise<Buffer> {
	const decoder = new QuotedPrintableDecoder();
	const output: Buffer[] = [];
	decoder.on('data', (chunk: Buffer) => output.push(chunk));
	for (const piece of cut(input, at)) if (piece.length) decoder.write(piece);
	return new Promise((resolve) => decoder.end(() => resolve(Buffer.concat(output))));
}

describe('quoted-printable decoded as it streams', () => {
	it('gives what decoding the whole part at once gives, wherever the chunks are cut', async () => {
		await fc.assert(
			fc.asyncProperty(qpText, cuts(12), async (input, at) => {
				expect((await streamDecode(input, at)).equals(decode(input))).toBe(true);
			}),
			{ numRuns: 2000 },
		);
		// Found by the property: a soft line break inside an escape ("=" "=\n" "00" decodes as "=00").
		expect((await streamDecode(Buffer.from('==\n00'), [4])).equals(decode(Buffer.from('==\n00')))).toBe(true);
	});

	it('gathers a part with no safe cut for 64 KB and decodes it whole, in linear time, wherever the chunks are cut', async () => {
		// Each of these leaves nowhere to cut for as long as it repeats; normal text around it has places to cut. (A run of
		// blanks does too, but libqp 2.1.2 takes minutes to decode a long one whole: see the next test.)
		const hostile = fc.constantFrom('=\n', '==\n', '= \r\n', '=0=\n', '=');
		await fc.assert(
			fc.asyncProperty(hostile, fc.integer({ min: 30_000, max: 120_000 }), cuts(12), async (unit, repeats, at) => {
				const input = Buffer.from(`caf=C3=A9 au lait=\r\n${unit.repeat(repeats)}=41 done\r\n`, 'latin1');
				expect((await streamDecode(input, at)).equals(decode(input))).toBe(true);
			}),
			{ numRuns: 30 },
		);
	});

	it('decodes as libqp 2.1.2 does, and a long run of blanks in linear time', async () => {
		fc.assert(
			fc.property(qpText, (input) => linearDecode(input).equals(decode(input))),
			{ numRuns: 2000 },
		);
		const blanks = Buffer.from(`a=41${' \t'.repeat(3000)}\r\nb${' '.repeat(5000)}x=\r\n`, 'latin1');
		expect(linearDecode(blanks).equals(decode(blanks))).toBe(true);
		// 2.1.2 takes about 21 s for this; libqp 3, and so the stream decoder, a few milliseconds.
		const run = Buffer.from(`caf=C3=A9 ${' '.repeat(100_000)}x done\r\n`, 'latin1');
		expect((await streamDecode(run, [7, 50_000])).toString('latin1')).toBe(`caf\u00c3\u00a9 ${' '.repeat(100_000)}x done\r\n`);
	});

	it('holds back only the few bytes that may not end a chunk', async () => {
		const decoder = new QuotedPrintableDecoder();
		const output: Buffer[] = [];
		decoder.on('data', (chunk: Buffer) => output.push(chunk));
		decoder.write(Buffer.from('caf=C3=A9 =\r\nau lait=\r'));
		await new Promise(setImmediate);
		expect(Buffer.concat(output).toString()).toBe('café au lait');
		decoder.end(Buffer.from('\n!'));
		await new Promise((resolve) => decoder.on('end', resolve));
		expect(Buffer.concat(output).toString()).toBe('café au lait!');
	});
});
