import { numberLinks } from '../../../dist/server/parse/numbered-links';

describe('numberLinks', () => {
	it('leaves text without links as it is', () => {
		expect(numberLinks('no links here\n')).toBe('no links here\n');
		expect(numberLinks('')).toBe('');
		expect(numberLinks('example.com and www.example.com are not clicked links')).toBe('example.com and www.example.com are not clicked links');
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
