import { linkSegments } from '../../parse/links';

/**
 * Renders text the way the text endpoint serves it: each link replaced by its number in
 * brackets ("[1]"), the same URL keeping its number, and the numbered list at the end.
 */
export function numberLinks(text: string): string {
	return [...numberedLinkPieces([text])].join('');
}

/**
 * numberLinks on a text read in pieces, a piece at a time, exactly as on the whole text (links are found as in it: see
 * linkSegments). Only trailing whitespace waits: it is dropped before the list when there are links, kept when none.
 */
export function* numberedLinkPieces(text: Iterable<string>): Generator<string> {
	const numbers = new Map<string, number>();
	let blanks = '';
	for (const segment of linkSegments(text)) {
		let out = '';
		let cursor = 0;
		for (const link of segment.links) {
			if (!numbers.has(link.url)) numbers.set(link.url, numbers.size + 1);
			out += `${segment.text.slice(cursor, link.index)}[${numbers.get(link.url)}]`;
			cursor = link.lastIndex;
		}
		out += segment.text.slice(cursor);
		const kept = out.trimEnd();
		if (kept) yield blanks + kept;
		blanks = kept ? out.slice(kept.length) : blanks + out;
	}
	if (numbers.size === 0) {
		if (blanks) yield blanks;
		return;
	}
	const list = [...numbers].map(([url, n]) => `[${n}] ${url}`).join('\n');
	// Three blank lines before the list, as Mailsac's text endpoint does.
	yield `\n\n\n\n${list}\n`;
}
