import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { numberLinks, numberedLinkPieces } from 'mailroom-server/dist/http/render/numbered-links';
import { SchemeEndSearch, findTextLinks } from 'mailroom-server/dist/parse/links';

describe('numberLinks', () => {
	it('leaves text without links as it is', () => {
		expect(numberLinks('no links here\n')).toBe('no links here\n');
		expect(numberLinks('')).toBe('');
		expect(numberLinks('example.com and www.example.com are not clicked links')).toBe(
			'example.com and www.example.com are not clicked links',
		);
	});

	it('numbers each link where it occurs and lists them after three blank lines', () => {
		expect(numberLinks('Visit https://example.org/a today.\n')).toBe('Visit [1] today.\n\n\n\n[1] https://example.org/a\n');
	});

	it('gives a repeated URL the same number and lists it once, in order of first appearance', () => {
		const text = 'B https://example.org/b, A https://example.org/a, B again https://example.org/b';
		expect(numberLinks(text)).toBe('B [1], A [2], B again [1]\n\n\n\n[1] https://example.org/b\n[2] https://example.org/a\n');
	});

	it('keeps punctuation around a link out of it', () => {
		expect(numberLinks('(see https://example.org/x). Or "https://example.org/y"!')).toBe(
			'(see [1]). Or "[2]"!\n\n\n\n[1] https://example.org/x\n[2] https://example.org/y\n',
		);
	});

	it('keeps query strings and fragments in the listed URL', () => {
		expect(numberLinks('go https://example.org/p?q=1&r=two#frag now')).toBe('go [1] now\n\n\n\n[1] https://example.org/p?q=1&r=two#frag\n');
	});

	it('numbers http, https and ftp links, not mailto', () => {
		expect(numberLinks('http://a.example ftp://b.example/f mailto:c@d.example')).toBe(
			'[1] [2] mailto:c@d.example\n\n\n\n[1] http://a.example\n[2] ftp://b.example/f\n',
		);
	});

	it('drops trailing whitespace before the list', () => {
		expect(numberLinks('link https://example.org/z  \n\n\n')).toBe('link [1]\n\n\n\n[1] https://example.org/z\n');
	});

	it('handles many links and numbers past 9', () => {
		const text = Array.from({ length: 12 }, (_, i) => `https://example.org/${i}`).join(' ');
		const out = numberLinks(text);
		expect(out.startsWith('[1] [2] [3] [4] [5] [6] [7] [8] [9] [10] [11] [12]\n\n\n\n')).toBe(true);
		expect(out.endsWith('[10] https://example.org/9\n[11] https://example.org/10\n[12] https://example.org/11\n')).toBe(true);
	});
});

/** numberLinks as it was before it could take pieces: the whole text and findTextLinks. */
function numberLinksWhole(text: string): string {
	const links = findTextLinks(text);
	if (links.length === 0) return text;
	const numbers = new Map<string, number>();
	let out = '';
	let cursor = 0;
	for (const link of links) {
		if (!numbers.has(link.url)) numbers.set(link.url, numbers.size + 1);
		out += `${text.slice(cursor, link.index)}[${numbers.get(link.url)}]`;
		cursor = link.lastIndex;
	}
	const list = [...numbers].map(([url, n]) => `[${n}] ${url}`).join('\n');
	return `${(out + text.slice(cursor)).trimEnd()}\n\n\n\n${list}\n`;
}

/** Cuts text at code point positions (as UTF-8 decoding a piece at a time does: never inside a character). */
function cutText(text: string, cuts: number[]): string[] {
	const chars = Array.from(text);
	const at = [...new Set(cuts.map((cut) => cut % (chars.length + 1)))].sort((a, b) => a - b);
	return [0, ...at].map((start, i) => chars.slice(start, at[i] ?? chars.length).join(''));
}

/** Text with links, whitespace (U+FEFF and U+3000 too), characters outside the BMP and runs too long to scan. */
const linkText = fc
	.array(
		fc.oneof(
			fc.constantFrom(
				'https://example.org/a',
				'http://b.example/p?q=1&r=😀',
				'ftp://f.example/x',
				'https://example.org/a.',
				'(https://c.example)',
				'mailto:m@x.example',
			),
			fc.constantFrom(' ', '\n', '\r\n', '\t', '\u3000', '\ufeff', '  \n\n', 'Zürich', '😀', '“q”', 'word', '://', 'https:'),
			fc.constantFrom('x'.repeat(4100), `${'😀'.repeat(2050)}https://long.example/`, `${'y'.repeat(4090)}https://edge.example/`),
			fc.string({ maxLength: 6 }),
		),
		{ maxLength: 40 },
	)
	.map((parts) => parts.join(''));

describe('numberedLinkPieces', () => {
	it('gives what numbering the whole text gives, and the same UTF-8 bytes, wherever the text is cut', () => {
		fc.assert(
			fc.property(linkText, fc.array(fc.nat(), { maxLength: 12 }), (text, cuts) => {
				const pieces = [...numberedLinkPieces(cutText(text, cuts))];
				const whole = numberLinksWhole(text);
				expect(pieces.join('')).toBe(whole);
				expect(Buffer.concat(pieces.map((piece) => Buffer.from(piece))).equals(Buffer.from(whole))).toBe(true);
			}),
			{ numRuns: 1000 },
		);
	});

	it('keeps trailing whitespace cut into pieces of its own when there is no link, drops it before the list when there is', () => {
		expect([...numberedLinkPieces(['text', '  ', '\n', ' \n'])].join('')).toBe('text  \n \n');
		expect([...numberedLinkPieces(['see https://example.org/z', '  ', '\n\n'])].join('')).toBe(
			'see [1]\n\n\n\n[1] https://example.org/z\n',
		);
	});
});

describe('SchemeEndSearch', () => {
	const foundIn = (pieces: Buffer[]) => {
		const search = new SchemeEndSearch();
		return pieces.some((piece) => search.foundIn(piece));
	};

	it("finds '://' in UTF-8 bytes wherever they are cut, and only that", () => {
		fc.assert(
			fc.property(linkText, fc.array(fc.nat(), { maxLength: 12 }), (text, cuts) => {
				const bytes = Buffer.from(text);
				const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
				expect(foundIn([0, ...at].map((start, i) => bytes.subarray(start, at[i] ?? bytes.length)))).toBe(text.includes('://'));
			}),
			{ numRuns: 1000 },
		);
		expect(foundIn([Buffer.from('a:'), Buffer.from('/'), Buffer.from('/b')])).toBe(true);
		expect(foundIn([Buffer.from('a:/'), Buffer.from(''), Buffer.from('x/')])).toBe(false);
	});
});
