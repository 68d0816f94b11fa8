import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { numberLinks, numberedLinkPieces } from 'mailroom-server/dist/http/render/numbered-links';
import { findTextLinks } from 'mailroom-server/dist/parse/links';
import { collect, cut, cuts, joinedText, linkText } from '../../../helpers/cuts';

describe('numberLinks', () => {
	it('leaves text without links as it is', async () => {
		expect(await numberLinks('no links here\n')).toBe('no links here\n');
		expect(await numberLinks('')).toBe('');
		expect(await numberLinks('example.com and www.example.com are not clicked links')).toBe(
			'example.com and www.example.com are not clicked links',
		);
	});

	it('numbers each link where it occurs and lists them after three blank lines', async () => {
		expect(await numberLinks('Visit https://example.org/a today.\n')).toBe('Visit [1] today.\n\n\n\n[1] https://example.org/a\n');
	});

	it('gives a repeated URL the same number and lists it once, in order of first appearance', async () => {
		const text = 'B https://example.org/b, A https://example.org/a, B again https://example.org/b';
		expect(await numberLinks(text)).toBe('B [1], A [2], B again [1]\n\n\n\n[1] https://example.org/b\n[2] https://example.org/a\n');
	});

	it('keeps punctuation around a link out of it', async () => {
		expect(await numberLinks('(see https://example.org/x). Or "https://example.org/y"!')).toBe(
			'(see [1]). Or "[2]"!\n\n\n\n[1] https://example.org/x\n[2] https://example.org/y\n',
		);
	});

	it('keeps query strings and fragments in the listed URL', async () => {
		expect(await numberLinks('go https://example.org/p?q=1&r=two#frag now')).toBe(
			'go [1] now\n\n\n\n[1] https://example.org/p?q=1&r=two#frag\n',
		);
	});

	it('numbers http, https and ftp links, not mailto', async () => {
		expect(await numberLinks('http://a.example ftp://b.example/f mailto:c@d.example')).toBe(
			'[1] [2] mailto:c@d.example\n\n\n\n[1] http://a.example\n[2] ftp://b.example/f\n',
		);
	});

	it('drops trailing whitespace before the list', async () => {
		expect(await numberLinks('link https://example.org/z  \n\n\n')).toBe('link [1]\n\n\n\n[1] https://example.org/z\n');
	});

	it('handles many links and numbers past 9', async () => {
		const text = Array.from({ length: 12 }, (_, i) => `https://example.org/${i}`).join(' ');
		const out = await numberLinks(text);
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
const cutText = (text: string, at: number[]) => cut(Array.from(text), at).map((chars) => chars.join(''));

describe('numberedLinkPieces', () => {
	it('gives what numbering the whole text gives, and the same UTF-8 bytes, wherever the text is cut', async () => {
		await fc.assert(
			fc.asyncProperty(linkText, cuts(12), async (text, at) => {
				const pieces = await collect(numberedLinkPieces(cutText(text, at)));
				const whole = numberLinksWhole(text);
				expect(pieces.join('')).toBe(whole);
				expect(Buffer.concat(pieces.map((piece) => Buffer.from(piece))).equals(Buffer.from(whole))).toBe(true);
			}),
			{ numRuns: 1000 },
		);
	});

	it('keeps trailing whitespace cut into pieces of its own when there is no link, drops it before the list when there is', async () => {
		expect(await joinedText(numberedLinkPieces(['text', '  ', '\n', ' \n']))).toBe('text  \n \n');
		expect(await joinedText(numberedLinkPieces(['see https://example.org/z', '  ', '\n\n']))).toBe(
			'see [1]\n\n\n\n[1] https://example.org/z\n',
		);
	});
});
