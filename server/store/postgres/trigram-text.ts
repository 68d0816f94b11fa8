/**
 * Text as PostgreSQL's search index keeps it: folded to lower case, then spelt in ASCII letters and digits only.
 *
 * pg_trgm takes trigrams of words, and a word is letters and digits as the database's locale classifies them: under the C
 * locale a Cyrillic or accented word has no trigram at all, and `x@y.test` only those of `x`, `y` and `test`, so such
 * terms could not be found through the index. Spelt this way, every message's text is one long word whose trigrams are
 * trigrams of the text, in any locale and any script, as SQLite's trigram tokenizer makes them.
 *
 * Lower-case ASCII letters and digits stay as they are; every other character becomes an escape of upper-case letters
 * (folded text has none of its own): `Z` and one letter for common punctuation and spaces, `Q` and five letters (base 24)
 * for any other code point. Neither marker is ever a letter of an escape, so a spelt term can only be found in spelt text
 * where the term itself is: a match starts on a marker or a character of its own, and every escape's length follows from
 * its marker. LIKE needs no escaping either: `%`, `_` and `\` are spelt too.
 */

/** The letters of escapes: A to Y without Q. */
const LETTERS = 'ABCDEFGHIJKLMNOPRSTUVWXY';
/** Characters with a two-letter escape (Z and one letter each), most common first. */
const SHORT = ' \n.,-@:/_\'"!?()#&+=;*%\t$';
const KEPT = /^[a-z0-9]*$/;

const shortEscapes = new Map([...SHORT].map((char, i) => [char, `Z${LETTERS[i]}`]));

function escapeOf(codePoint: number): string {
	let letters = '';
	for (let rest = codePoint, i = 0; i < 5; i++, rest = Math.floor(rest / LETTERS.length))
		letters = LETTERS[rest % LETTERS.length] + letters;
	return `Q${letters}`;
}

/** `folded` (see foldCase) spelt in ASCII letters and digits. */
export function trigramText(folded: string): string {
	if (KEPT.test(folded)) return folded;
	let spelt = '';
	for (const char of folded) {
		const code = char.codePointAt(0)!;
		const kept = (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39);
		spelt += kept ? char : (shortEscapes.get(char) ?? escapeOf(code));
	}
	return spelt;
}
