import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { StreamedString, jsonBytes, jsonPieces } from 'mailroom-server/dist/bytes/streamed-json';
import { collect, cut, cuts, hardText, joinedText } from '../../helpers/cuts';

describe('JSON a piece at a time', () => {
	it('gives what JSON.stringify gives, with streamed strings cut anywhere (inside a surrogate pair too) and nested anywhere', async () => {
		await fc.assert(
			fc.asyncProperty(hardText, hardText, cuts(), cuts(), fc.jsonValue(), async (first, second, firstCuts, secondCuts, other) => {
				const value = { first, nested: { list: [other, second] }, other };
				const streamed = {
					first: new StreamedString(() => cut(first, firstCuts)),
					nested: { list: [other, new StreamedString(() => cut(second, secondCuts))] },
					other,
				};
				return (await joinedText(jsonPieces(streamed))) === JSON.stringify(value);
			}),
		);
	});

	it('never holds a streamed string whole: each of its pieces is encoded on its own', async () => {
		const pieces = Array.from({ length: 5 }, (_, i) => `${i}`.repeat(1000));
		const out = await collect(jsonPieces({ text: new StreamedString(() => pieces) }));
		expect(out.join('')).toBe(JSON.stringify({ text: pieces.join('') }));
		expect(Math.max(...out.map((piece) => piece.length))).toBe(1000);
	});

	it('as bytes (jsonBytes): the UTF-8 of that JSON, a surrogate pair cut between pieces encoded whole', async () => {
		await fc.assert(
			fc.asyncProperty(hardText, cuts(), fc.jsonValue(), async (text, textCuts, other) => {
				const bytes = await collect(jsonBytes({ text: new StreamedString(() => cut(text, textCuts)), other }));
				return Buffer.concat(bytes).equals(Buffer.from(JSON.stringify({ text, other })));
			}),
		);
	});

	it('makes a streamed string afresh on every pass', async () => {
		const value = { text: new StreamedString(() => ['a', 'b']) };
		expect(await joinedText(jsonPieces(value))).toBe('{"text":"ab"}');
		expect(await joinedText(jsonPieces(value))).toBe('{"text":"ab"}');
	});
});
