import type { Transform } from 'node:stream';
import fc from 'fast-check';
import { decodeAsItStreams } from '../../../dist/server/parse/streaming-quoted-printable';

// libqp ships no types; the server declares them for its own build (server/parse/mime-libraries.d.ts).
const { Decoder, decode } = require('libqp') as { Decoder: new () => Transform; decode(input: Buffer): Buffer };

/** Quoted-printable with what makes cutting it hard: escapes, soft line breaks, trailing blanks, stray "=" and CRs. */
const qpText = fc
	.array(fc.oneof(fc.constantFrom('=', '=3D', '=E9', '=e9', '=\r\n', '=\n', '=\r', ' ', '\t', '  \r\n', '\r\n', '\n', '\r', '=ZZ', '=4'), fc.string({ maxLength: 8 })), { maxLength: 60 })
	.map((pieces) => Buffer.from(pieces.join(''), 'latin1'));

/** Writes `input` in pieces cut at `cuts` and collects what the decoder gives. */
function streamDecode(input: Buffer, cuts: number[]): Promise<Buffer> {
	const decoder = new Decoder();
	decodeAsItStreams(decoder);
	const output: Buffer[] = [];
	decoder.on('data', (chunk: Buffer) => output.push(chunk));
	const ends = [...new Set(cuts.map((cut) => cut % (input.length + 1)))].sort((a, b) => a - b);
	let start = 0;
	for (const end of [...ends, input.length]) {
		if (end > start) decoder.write(input.subarray(start, end));
		start = Math.max(start, end);
	}
	return new Promise((resolve) => decoder.end(() => resolve(Buffer.concat(output))));
}

describe('quoted-printable decoded as it streams', () => {
	it('gives what decoding the whole part at once gives, wherever the chunks are cut', async () => {
		await fc.assert(
			fc.asyncProperty(qpText, fc.array(fc.nat(), { maxLength: 12 }), async (input, cuts) => {
				expect((await streamDecode(input, cuts)).equals(decode(input))).toBe(true);
			}),
			{ numRuns: 500 },
		);
	});

	it('holds back only the few bytes that may not end a chunk', async () => {
		const decoder = new Decoder();
		decodeAsItStreams(decoder);
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
