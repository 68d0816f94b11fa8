import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { MAX_LINKS, SchemeEndSearch, extractLinks, findTextLinks } from 'mailroom-server/dist/parse/links';
import { cut, cuts, linkText } from '../../helpers/cuts';

const MB = 1024 * 1024;

/** `text` with `link` written over it so that byte `at` of its UTF-8 falls inside the link. */
function withLinkAcross(text: string, at: number, link: string): string {
	let index = 0;
	for (let bytes = 0; bytes < at - Buffer.byteLength(link) / 2; index++) bytes += Buffer.byteLength(text[index]);
	const written = `${text.slice(0, index)} ${link} ${text.slice(index + link.length + 2)}`;
	const start = Buffer.from(written).indexOf(link);
	expect(start < at && at < start + link.length).toBe(true);
	return written;
}

describe('extractLinks', () => {
	it('lists each distinct web link of the HTML and the text once, in order of first appearance', () => {
		const html =
			'<a href="https://a.test/1">one</a> <a href="mailto:x@y.test">mail</a> <area href="http://b.test/map"> <a href="https://a.test/1">again</a>';
		const text = 'see https://c.test/x?y=1 and ftp://files.test/f and example.com and https://a.test/1';
		expect(extractLinks(text, html)).toEqual(['https://a.test/1', 'http://b.test/map', 'https://c.test/x?y=1', 'ftp://files.test/f']);
	});

	it(`keeps at most ${MAX_LINKS} links, so a link bomb cannot bloat every listing`, () => {
		const text = Array.from({ length: MAX_LINKS + 500 }, (_, i) => `https://bomb.test/${i}`).join('\n');
		const links = extractLinks(text, null);
		expect(links).toHaveLength(MAX_LINKS);
		expect(links[MAX_LINKS - 1]).toBe(`https://bomb.test/${MAX_LINKS - 1}`);
	});

	it('keeps crafted text that would make link detection backtrack as plain text, and still finds the links around it', () => {
		// Before link detection was bounded, one such run took longer than the age of the universe.
		const chained = `http://${Array.from({ length: 40 }, () => 'xn--a').join('.')}`;
		const text = `see https://ok.test/1 ${`${chained} `.repeat(50)} ${`https://x.test/${'a:'.repeat(5000)}`} and https://ok.test/2`;
		expect(extractLinks(text, null)).toEqual(['https://ok.test/1', 'https://ok.test/2']);
	});

	it('reports where each link stands in the text', () => {
		expect(findTextLinks('one https://a.test/x  two http://b.test')).toEqual([
			{ url: 'https://a.test/x', index: 4, lastIndex: 20 },
			{ url: 'http://b.test', index: 26, lastIndex: 39 },
		]);
	});

	describe('in a large body kept in a file (read a megabyte at a time)', () => {
		const dir = mkdtempSync(join(tmpdir(), 'mailroom-links-'));
		afterAll(() => rmSync(dir, { recursive: true, force: true }));
		const inFile = (name: string, body: string) => {
			writeFileSync(join(dir, name), body);
			return { spoolPath: join(dir, name), byteLength: Buffer.byteLength(body) };
		};

		it('finds what it finds in the same text in memory, across the chunk boundaries', () => {
			// ASCII words with a 3-byte character between them, so chunk boundaries fall inside characters too.
			let text = Array.from({ length: (3.2 * MB) / 16 }, (_, i) => (i % 997 === 0 ? `https://every.test/${i} ` : 'word €uro text\n')).join(
				'',
			);
			text = withLinkAcross(text, MB, 'https://across.test/first-boundary');
			// A whitespace-free run far too long to hold a link, "://" in its part past the second boundary.
			const longRun = `${'x'.repeat(MB / 2)}https://inside.test/${'y'.repeat(MB / 2)}`;
			text = `${text.slice(0, 2 * MB - MB / 2)}${longRun} https://after.test/run ${text.slice(2 * MB + MB / 2)}`;
			const links = extractLinks(inFile('text', text), null);
			expect(links).toEqual(extractLinks(text, null));
			expect(links).toEqual(expect.arrayContaining(['https://across.test/first-boundary', 'https://after.test/run']));
			expect(links.some((link) => link.includes('inside.test'))).toBe(false);
		});

		it('finds the links of an HTML body, with a tag across a chunk boundary', () => {
			let html = '<p>filler paragraph</p>\n'.repeat((2.5 * MB) / 24);
			html = withLinkAcross(html, MB, '<a href="https://across.test/html">across</a>');
			html = withLinkAcross(html, 2 * MB, '<a href="https://across.test/second">second</a>');
			const links = extractLinks('', inFile('html', html));
			expect(links).toEqual(['https://across.test/html', 'https://across.test/second']);
			expect(links).toEqual(extractLinks('', html));
		});
	});
});

describe('SchemeEndSearch', () => {
	const foundIn = (pieces: Buffer[]) => {
		const search = new SchemeEndSearch();
		return pieces.some((piece) => search.foundIn(piece));
	};

	it("finds '://' in UTF-8 bytes wherever they are cut, and only that", () => {
		fc.assert(
			fc.property(linkText, cuts(12), (text, at) => {
				expect(foundIn(cut(Buffer.from(text), at))).toBe(text.includes('://'));
			}),
			{ numRuns: 1000 },
		);
		expect(foundIn([Buffer.from('a:'), Buffer.from('/'), Buffer.from('/b')])).toBe(true);
		expect(foundIn([Buffer.from('a:/'), Buffer.from(''), Buffer.from('x/')])).toBe(false);
	});
});
