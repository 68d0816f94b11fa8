import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { LEXEME_BUDGET, LEXEME_CHARS, SHORTEST_PIECE, bodyLexemes, bodyWordQuery } from 'mailroom-server/dist/store/postgres/body-words';
import { foldCase } from 'mailroom-server/dist/store/search-plan';

/** Folded text of a few letters (so that terms recur), digits, marks, punctuation, spaces and other scripts. */
const folded = (maxLength: number) =>
	fc.string({ unit: fc.constantFrom(...'abab9 .@-\n'.split(''), 'é', 'e\u0301', 'ж', '日', '😀', '\0'), maxLength }).map(foldCase);

/** What a prefix query of the GIN index finds: some lexeme starting with each piece of the tsquery. */
function matches(lexemes: string[], tsquery: string): boolean {
	const pieces = [...tsquery.matchAll(/'([^']*)':\*/g)].map(([, piece]) => piece);
	return pieces.every((piece) => lexemes.some((lexeme) => lexeme.startsWith(piece)));
}

describe('bodies indexed by their words for PostgreSQL', () => {
	it('indexes the distinct suffixes of each word, of three characters or more, cut to LEXEME_CHARS', () => {
		expect(bodyLexemes('pay the invoice, pay!')!.sort()).toEqual(['invoice', 'nvoice', 'voice', 'oice', 'ice', 'pay', 'the'].sort());
		expect(bodyLexemes('ab x@y.test')).toEqual(['test', 'est']);
		expect(bodyLexemes('überweisung')).toContain('überweisung');
		const long = 'a'.repeat(10) + 'bcdefghijklmnopqrstu';
		expect(bodyLexemes(long)).toContain('aaaaaaaaaabcdefg');
		expect(bodyLexemes(long)!.every((lexeme) => [...lexeme].length <= LEXEME_CHARS)).toBe(true);
		expect(bodyLexemes('')).toEqual([]);
	});

	it('gives up on a body whose suffixes would not fit a tsvector: such a body is compared instead', () => {
		const distinct = Array.from({ length: 20_000 }, (_, i) => i.toString(36).padStart(4, 'q')).join('');
		expect(bodyLexemes(distinct)).toBeUndefined();
		// The same length of repeated text has few distinct suffixes.
		expect(bodyLexemes('abcd'.repeat(20_000))!.length).toBe(4 + (LEXEME_CHARS - SHORTEST_PIECE));
		expect(LEXEME_BUDGET * 3).toBeLessThan(1024 * 1024);
	});

	it('looks up the word pieces of three characters or more; the words decide for one uncut word only', () => {
		expect(bodyWordQuery('invoice')).toEqual({ tsquery: "'invoice':*", exact: true });
		expect(bodyWordQuery('voic')).toEqual({ tsquery: "'voic':*", exact: true });
		expect(bodyWordQuery('invoice 42 pay')).toEqual({ tsquery: "'invoice':* & 'pay':*", exact: false });
		expect(bodyWordQuery('billing@vendor')).toEqual({ tsquery: "'billing':* & 'vendor':*", exact: false });
		expect(bodyWordQuery('x'.repeat(LEXEME_CHARS + 1))).toEqual({ tsquery: `'${'x'.repeat(LEXEME_CHARS)}':*`, exact: false });
		expect(bodyWordQuery('a.b')).toBeUndefined();
		expect(bodyWordQuery('ab')).toBeUndefined();
		expect(SHORTEST_PIECE).toBe(3);
	});

	it('finds every body that contains a term, and no other where the words decide', () => {
		fc.assert(
			fc.property(folded(40), folded(8), (body, term) => {
				const query = bodyWordQuery(term);
				const lexemes = bodyLexemes(body)!;
				fc.pre(query !== undefined);
				if (body.includes(term)) expect(matches(lexemes, query.tsquery)).toBe(true);
				if (query.exact) expect(matches(lexemes, query.tsquery)).toBe(body.includes(term));
			}),
			{ numRuns: 5000 },
		);
		// Every piece of a body, by construction, with long words too.
		fc.assert(
			fc.property(folded(60), fc.nat(), fc.nat(), (body, a, b) => {
				const chars = [...body];
				const [from, to] = [a % (chars.length + 1), b % (chars.length + 1)].sort((x, y) => x - y);
				const query = bodyWordQuery(chars.slice(from, to).join(''));
				if (query) expect(matches(bodyLexemes(body)!, query.tsquery)).toBe(true);
			}),
			{ numRuns: 5000 },
		);
	});
});
