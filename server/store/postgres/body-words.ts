/**
 * How PostgreSQL finds terms in text bodies: through the words of each body rather than its trigrams.
 *
 * A body's trigrams narrow a search poorly (a kilobyte of text holds most of the trigrams of a common word without the
 * word), so each candidate's body had to be compared. Instead, a body is indexed as the suffixes of its words (runs of
 * letters, digits and marks), each cut to its first LEXEME_CHARS characters, in a tsvector made here (not by PostgreSQL's
 * parser, whose words depend on its configuration and locale). A term without other characters is in a body exactly when
 * some suffix starts with it: a prefix query (`'term':*`) of the GIN index answers it with no comparison. A term with other
 * characters, or a longer one, is narrowed the same way by each of its word pieces and then compared with `LIKE`.
 */

import { firstCharacters } from '../search-plan';

/** Letters, digits and combining marks, as Unicode classifies them: what words are made of. */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/** The shortest suffix indexed: a word piece shorter than this cannot be looked up (as with trigrams). */
export const SHORTEST_PIECE = 3;

/** Suffixes are cut to this many characters (code points), so that a long word costs as much as its length. */
export const LEXEME_CHARS = 16;

/**
 * The most a body's suffixes may add up to, in UTF-16 code units (at most 3 bytes of UTF-8 each): a tsvector holds at most
 * 1 MB. A body over it (a long run of distinct text, such as base64) is not indexed by words and is compared instead.
 */
export const LEXEME_BUDGET = 200_000;

const SURROGATE = /[\uD800-\uDFFF]/;

/** A body's distinct word suffixes of SHORTEST_PIECE characters or more, cut to LEXEME_CHARS; undefined over LEXEME_BUDGET. */
export function bodyLexemes(folded: string): string[] | undefined {
	const lexemes = new Set<string>();
	let units = 0;
	for (const word of new Set(folded.match(WORD))) {
		// Characters outside the BMP take two code units: only then is the word split into code points.
		const chars = SURROGATE.test(word) ? [...word] : word;
		for (let start = 0; start + SHORTEST_PIECE <= chars.length; start++) {
			const lexeme =
				typeof chars === 'string' ? chars.slice(start, start + LEXEME_CHARS) : chars.slice(start, start + LEXEME_CHARS).join('');
			if (lexemes.has(lexeme)) continue;
			lexemes.add(lexeme);
			units += lexeme.length;
			if (units > LEXEME_BUDGET) return undefined;
		}
	}
	return [...lexemes];
}

/** How a folded term is looked for in bodies' words. */
export interface BodyWordQuery {
	/** A tsquery: every word piece of SHORTEST_PIECE characters or more (cut to LEXEME_CHARS) starts some suffix. */
	tsquery: string;
	/** Whether the tsquery alone decides: the term is one word piece that was not cut. */
	exact: boolean;
}

/** The query for a folded term; undefined when no word piece of it is long enough to look up. */
export function bodyWordQuery(folded: string): BodyWordQuery | undefined {
	const pieces = [...folded.matchAll(WORD)].map(([piece]) => piece).filter((piece) => [...piece].length >= SHORTEST_PIECE);
	if (pieces.length === 0) return undefined;
	// Word pieces hold no quote, backslash or colon: quoted, they are read as they are.
	const tsquery = pieces.map((piece) => `'${firstCharacters(piece, LEXEME_CHARS)}':*`).join(' & ');
	return { tsquery, exact: pieces.length === 1 && pieces[0] === folded && [...folded].length <= LEXEME_CHARS };
}
