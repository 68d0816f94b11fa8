import LinkifyIt from 'linkify-it';
import { Parser } from 'htmlparser2';

// Only links with an explicit scheme: "example.com" in prose is not a link a user clicks.
const linkify = new LinkifyIt({}, { fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });
const WEB_LINK = /^(https?|ftp):\/\//i;

/** URLs written in plain text, in order of appearance, with their positions. */
export function findTextLinks(text: string): { url: string; index: number; lastIndex: number }[] {
	return (linkify.match(text) ?? [])
		.filter((match) => WEB_LINK.test(match.url))
		.map((match) => ({ url: match.url, index: match.index, lastIndex: match.lastIndex }));
}

/** href targets of anchors and image maps in an HTML body. */
function findHtmlLinks(html: string): string[] {
	const links: string[] = [];
	const parser = new Parser({
		onopentag(name, attributes) {
			const href = (name === 'a' || name === 'area') && attributes.href?.trim();
			if (href && WEB_LINK.test(href)) links.push(href);
		},
	});
	parser.end(html);
	return links;
}

/** A record lists at most this many links: every listing returns them, so a link bomb must not bloat it. */
export const MAX_LINKS = 1000;

/** Each distinct URL found in the text and HTML bodies, in order of first appearance (at most MAX_LINKS). */
export function extractLinks(text: string, html: string | null): string[] {
	const found = [...(html ? findHtmlLinks(html) : []), ...findTextLinks(text).map((link) => link.url)];
	return [...new Set(found)].slice(0, MAX_LINKS);
}
