import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { trigramText } from 'mailroom-server/dist/store/postgres/trigram-text';
import { foldCase } from 'mailroom-server/dist/store/search-plan';

/** Folded text of letters, digits, punctuation, spaces and characters of other scripts, emoji and NUL included. */
const folded = (maxLength: number) =>
	fc
		.string({ unit: fc.constantFrom(...'ab9 .@-_%\\\n'.split(''), 'é', 'ж', 'Σ', '日', '😀', '\0', '\uFFFD', 'Q', 'Z'), maxLength })
		.map(foldCase);

describe('text spelt for the PostgreSQL trigram index', () => {
	it('keeps lower-case ASCII letters and digits, and spells everything else in escapes of upper-case letters', () => {
		expect(trigramText('invoice 42')).toBe('invoiceZA42');
		expect(trigramText('a@b.test')).toBe('aZFbZCtest');
		expect(trigramText('50%_\\')).toBe('50ZWZIQAAADV');
		expect(trigramText('été')).toBe('QAAAJStQAAAJS');
		expect(trigramText('')).toBe('');
	});

	it('is ASCII letters and digits only: pg_trgm takes it as one word in any locale, and LIKE finds no wildcard in it', () => {
		fc.assert(fc.property(folded(40), (text) => expect(trigramText(text)).toMatch(/^[a-zA-Z0-9]*$/)));
	});

	it('contains a spelt term exactly where the text contains the term', () => {
		fc.assert(
			fc.property(folded(30), folded(6), (text, term) => {
				expect(trigramText(text).includes(trigramText(term))).toBe(text.includes(term));
			}),
			{ numRuns: 5000 },
		);
		// Where a term is found, by construction: every piece of a text.
		fc.assert(
			fc.property(folded(30), fc.nat(), fc.nat(), (text, a, b) => {
				const chars = [...text];
				const [from, to] = [a % (chars.length + 1), b % (chars.length + 1)].sort((x, y) => x - y);
				expect(trigramText(text).includes(trigramText(chars.slice(from, to).join('')))).toBe(true);
			}),
		);
	});

	it('spells every code point apart from the others', () => {
		const spelt = new Set<string>();
		for (const code of [0, 0x41, 0x7f, 0xe9, 0xd800, 0xffff, 0x10000, 0x10ffff]) spelt.add(trigramText(String.fromCodePoint(code)));
		expect(spelt.size).toBe(8);
	});
});
