import { MAX_LINKS, extractLinks } from '../../../dist/server/parse/links';

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
});
