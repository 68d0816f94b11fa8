import LinkifyIt from 'linkify-it';
import { Parser } from 'htmlparser2';

// Only links with an explicit scheme: "example.com" in prose is not a link a user clicks.
const linkify = new LinkifyIt({}, { fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });
const WEB_LINK = /^(https?|ftp):\/\//i;
/** Every link listed has a scheme: text without one has no link. */
const SCHEME_END = '://';

/*
 * Message text is untrusted and linkify backtracks on crafted runs: its cost grows with the
 * square of a whitespace-free run's length and exponentially with the number of dot-separated
 * host labels chained in it. So text is scanned one run at a time; runs that cannot hold a
 * scheme, that are too long or chain too many labels stay plain text, and a message has a total
 * budget. (mailparser bounds its own link detection the same way.)
 */
const MAX_RUN_LENGTH = 4096;
const MAX_HOST_LABELS = 6;
const MAX_SCAN_WORK = 64 * 1024 * 1024;
// U+FEFF is whitespace to JavaScript but a link character to linkify: it must not end a run.
const RUN = /[\S\uFEFF]+/g;

const isHostCharacter = (code: number) =>
	(code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39) || code === 0x2d || code >= 0x80;

function worthScanning(run: string): boolean {
	if (run.length > MAX_RUN_LENGTH || !run.includes(SCHEME_END)) return false;
	// Dots chain into one host candidate only while the characters between them could be a host.
	let labels = 0;
	for (let i = 0; i < run.length; i++) {
		const code = run.charCodeAt(i);
		if (code === 0x2e) {
			if (++labels > MAX_HOST_LABELS) return false;
		} else if (!isHostCharacter(code)) labels = 0;
	}
	return true;
}

/** URLs written in plain text, in order of appearance, with their positions. */
export function findTextLinks(text: string): { url: string; index: number; lastIndex: number }[] {
	const links: { url: string; index: number; lastIndex: number }[] = [];
	if (!text.includes(SCHEME_END)) return links;
	let work = 0;
	for (const { 0: run, index } of text.matchAll(RUN)) {
		if (!worthScanning(run)) continue;
		for (const match of linkify.match(run) ?? []) {
			if (WEB_LINK.test(match.url)) links.push({ url: match.url, index: index + match.index, lastIndex: index + match.lastIndex });
		}
		work += run.length * (run.length + 1024);
		if (work >= MAX_SCAN_WORK) break;
	}
	return links;
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
