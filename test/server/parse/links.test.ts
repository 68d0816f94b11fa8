import { MAX_LINKS, extractLinks, findTextLinks } from '../../../dist/server/parse/links';

describe('extractLinks', () => {
	it('lists each distinct web link of the HTML and the text once, in order of first appearance', () => {
		const html = '<a href="https://a.test/1">one</a> <a href="mailto:x@y.test">mail</a> <area href="http://b.test/map"> <a href="https://a.test/1">again</a>';
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
});
