import fc from 'fast-check';
import { crlfPieces, utf8Pieces } from 'mailroom-server/dist/bytes/text-pieces';
import { StreamedString, jsonPieces } from 'mailroom-server/dist/bytes/streamed-json';

/** `input` cut at `cuts` (positions taken modulo its length), in order. */
function cut<T extends { length: number; slice(start: number, end?: number): T }>(input: T, cuts: number[]): T[] {
	const ends = [...new Set(cuts.map((position) => position % (input.length + 1)))].sort((a, b) => a - b);
	const pieces: T[] = [];
	let start = 0;
	for (const end of [...ends, input.length]) {
		pieces.push(input.slice(start, end));
		start = end;
	}
	return pieces;
}

/** Text with what makes cutting it hard: CR, LF, surrogate pairs, lone surrogates, multi-byte characters, quotes and controls. */
const hardText = fc
	.array(
		fc.oneof(
			fc.constantFrom('\r', '\n', '\r\n', '😀', '\ud83d', '\ude00', 'é', '€', '"', '\\', '\u0000', '\u2028'),
			fc.string({ maxLength: 6 }),
		),
		{ maxLength: 40 },
	)
	.map((parts) => parts.join(''));

/** Bytes that are not always UTF-8: cut sequences, stray continuation bytes, overlongs. */
const hardBytes = fc
	.array(
		fc.oneof(
			fc.constantFrom(
				Buffer.from('😀'),
				Buffer.from('€'),
				Buffer.from([0xf0, 0x9f]),
				Buffer.from([0x80]),
				Buffer.from([0xc0, 0xaf]),
				Buffer.from('\r\n'),
			),
			fc.uint8Array({ maxLength: 6 }).map((bytes) => Buffer.from(bytes)),
		),
		{ maxLength: 40 },
	)
	.map((parts) => Buffer.concat(parts));

const cuts = fc.array(fc.nat(), { maxLength: 8 });

describe('text and JSON a piece at a time', () => {
	it('decodes UTF-8 pieces exactly as the whole, wherever they are cut', () => {
		fc.assert(fc.property(hardBytes, cuts, (bytes, at) => [...utf8Pieces(cut(bytes, at))].join('') === bytes.toString('utf8')));
	});

	it('writes line breaks as CRLF exactly as on the whole text, a CR and its LF in different pieces included', () => {
		fc.assert(fc.property(hardText, cuts, (text, at) => [...crlfPieces(cut(text, at))].join('') === text.replace(/\r?\n/g, '\r\n')));
		expect([...crlfPieces(['a\r', '\nb\r', '', '\r', 'c\n', '\r'])].join('')).toBe('a\r\nb\r\rc\r\n\r');
	});

	it('gives what JSON.stringify gives, with streamed strings cut anywhere (inside a surrogate pair too) and nested anywhere', () => {
		fc.assert(
			fc.property(hardText, hardText, cuts, cuts, fc.jsonValue(), (first, second, firstCuts, secondCuts, other) => {
				const value = { first, nested: { list: [other, second] }, other };
				const streamed = {
					first: new StreamedString(() => cut(first, firstCuts)),
					nested: { list: [other, new StreamedString(() => cut(second, secondCuts))] },
					other,
				};
				return [...jsonPieces(streamed)].join('') === JSON.stringify(value);
			}),
		);
	});

	it('never holds a streamed string whole: each of its pieces is encoded on its own', () => {
		const pieces = Array.from({ length: 5 }, (_, i) => `${i}`.repeat(1000));
		const out = [...jsonPieces({ text: new StreamedString(() => pieces) })];
		expect(out.join('')).toBe(JSON.stringify({ text: pieces.join('') }));
		expect(Math.max(...out.map((piece) => piece.length))).toBe(1000);
	});

	it('makes a streamed string afresh on every pass', () => {
		const value = { text: new StreamedString(() => ['a', 'b']) };
		expect([...jsonPieces(value)].join('')).toBe([...jsonPieces(value)].join(''));
	});
});
