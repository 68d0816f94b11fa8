import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { crlfPieces, utf8Pieces } from 'mailroom-server/dist/bytes/text-pieces';
import { cut, cuts, hardText, joinedText } from '../../helpers/cuts';

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

describe('text a piece at a time', () => {
	it('decodes UTF-8 pieces exactly as the whole, wherever they are cut', async () => {
		await fc.assert(
			fc.asyncProperty(hardBytes, cuts(), async (bytes, at) => (await joinedText(utf8Pieces(cut(bytes, at)))) === bytes.toString('utf8')),
		);
	});

	it('writes line breaks as CRLF exactly as on the whole text, a CR and its LF in different pieces included', async () => {
		await fc.assert(
			fc.asyncProperty(
				hardText,
				cuts(),
				async (text, at) => (await joinedText(crlfPieces(cut(text, at)))) === text.replace(/\r?\n/g, '\r\n'),
			),
		);
		expect(await joinedText(crlfPieces(['a\r', '\nb\r', '', '\r', 'c\n', '\r']))).toBe('a\r\nb\r\rc\r\n\r');
	});
});
