import { describe, expect, it } from '@jest/globals';
import { safeInlineStyle, type StyleImages } from 'mailroom-server/dist/http/render/inline-style';

const LOGO = 'data:image/png;base64,iVBORw0KGgo=';

function images(remoteImages = false): StyleImages & { blockedCount: () => number } {
	let blocked = 0;
	return {
		remoteImages,
		inlineImages: new Map([['logo@x.test', LOGO]]),
		blocked: () => blocked++,
		blockedCount: () => blocked,
	};
}

describe('safeInlineStyle: the style attribute of mail HTML, unable to reach the network', () => {
	it('keeps ordinary declarations, written out as parsed', () => {
		expect(safeInlineStyle('color: #c00; font-family: "Helvetica Neue", Arial ; padding:0 8px!important', images())).toBe(
			'color:#c00;font-family:"Helvetica Neue", Arial;padding:0 8px !important',
		);
		expect(safeInlineStyle('background: linear-gradient(to right, rgb(0 0 0), hsl(0 0% 100%)); width: calc(100% - 2px)', images())).toBe(
			'background:linear-gradient(to right, rgb(0 0 0), hsl(0 0% 100%));width:calc(100% - 2px)',
		);
		expect(safeInlineStyle('background: -webkit-linear-gradient(top, #fff, #000)', images())).toBe(
			'background:-webkit-linear-gradient(top, #fff, #000)',
		);
		expect(safeInlineStyle('COLOR: Red /* a comment */', images())).toBe('color:Red');
	});

	it('replaces cid: images with their data: URL and keeps data: images; an unknown cid drops its declaration', () => {
		expect(safeInlineStyle("background-image: url('cid:logo@x.test')", images())).toBe(`background-image:url("${LOGO}")`);
		expect(safeInlineStyle('background: url(cid:LOGO%40x.test) no-repeat', images())).toBe(`background:url("${LOGO}") no-repeat`);
		expect(safeInlineStyle(`background: url("${LOGO}")`, images())).toBe(`background:url("${LOGO}")`);
		expect(safeInlineStyle('background: url(cid:other@x.test); color: red', images())).toBe('color:red');
	});

	it('drops remote URLs (counting them) until remote images are allowed', () => {
		const blocking = images();
		expect(safeInlineStyle('color: red; background: url(https://tracker.test/a.png)', blocking)).toBe('color:red');
		expect(blocking.blockedCount()).toBe(1);
		expect(safeInlineStyle('background: url(https://tracker.test/a.png)', images(true))).toBe(
			'background:url("https://tracker.test/a.png")',
		);
	});

	it.each([
		['expression()', 'width: expression(alert(1))'],
		['a CSS escape spelling url', 'background: u\\72l(https://tracker.test/a.png)'],
		['an escape inside url()', 'background: url(https://tracker.test/\\61.png)'],
		['image-set() with a bare string URL', 'background: image-set("https://tracker.test/a.png" 1x)'],
		['var()', 'background: var(--x)'],
		['a custom property', '--x: url(https://tracker.test/a.png)'],
		['behavior', 'behavior: url(x.htc)'],
		['-moz-binding', '-moz-binding: url(https://tracker.test/x.xml#x)'],
		['a javascript: URL', 'background: url(javascript:alert(1))'],
		['a data: URL that is not an image', 'background: url(data:text/html,<script>alert(1)</script>)'],
		['a non-http scheme', 'background: url(ftp://tracker.test/a.png)'],
		['a protocol-relative URL', 'background: url(//tracker.test/a.png)'],
		['a quote inside a remote URL', `background: url('https://tracker.test/a".png')`],
		['attr()', 'background: attr(data-x url)'],
	])('drops %s', (_what, style) => {
		expect(safeInlineStyle(`${style}; color: blue`, images(true))).toBe('color:blue');
	});

	it('drops everything after an unbalanced url(, which a browser reads as part of the URL', () => {
		expect(safeInlineStyle('background: url(https://tracker.test/a.png; color: blue', images(true))).toBe('');
		expect(safeInlineStyle('color: blue; background: url(https://tracker.test/a.png', images(true))).not.toContain('url');
	});

	it('refuses what is not a list of declarations', () => {
		expect(safeInlineStyle('color: red } body { background: url(https://tracker.test/a.png)', images(true))).toBe('');
		expect(safeInlineStyle('@import url(https://tracker.test/a.css); color: red', images(true))).toBe('color:red');
		expect(safeInlineStyle('font-family: "unclosed', images())).toBe('');
		expect(safeInlineStyle('', images())).toBe('');
	});
});
