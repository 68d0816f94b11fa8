import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { StreamedString, jsonBytes, jsonPieces } from 'mailroom-server/dist/bytes/streamed-json';
import { cut, cuts, hardText } from '../../helpers/cuts';

describe('JSON a piece at a time', () => {
	it('gives what JSON.stringify gives, with streamed strings cut anywhere (inside a surrogate pair too) and nested anywhere', () => {
		fc.assert(
			fc.property(hardText, hardText, cuts(), cuts(), fc.jsonValue(), (first, second, firstCuts, secondCuts, other) => {
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

	it('as bytes (jsonBytes): the UTF-8 of that JSON, a surrogate pair cut between pieces encoded whole', () => {
		fc.assert(
			fc.property(hardText, cuts(), fc.jsonValue(), (text, textCuts, other) => {
				const bytes = [...jsonBytes({ text: new StreamedString(() => cut(text, textCuts)), other })];
				return Buffer.concat(bytes).equals(Buffer.from(JSON.stringify({ text, other })));
			}),
		);
	});

	it('makes a streamed string afresh on every pass', () => {
		const value = { text: new StreamedString(() => ['a', 'b']) };
		expect([...jsonPieces(value)].join('')).toBe([...jsonPieces(value)].join(''));
	});
});
