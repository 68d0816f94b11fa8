import { LinkSegmenter, type LinkSegment } from '../../parse/links';
import { joined, type AnyIterable } from '../../bytes/text-pieces';

/**
 * Renders text the way the text endpoint serves it: each link replaced by its number in
 * brackets ("[1]"), the same URL keeping its number, and the numbered list at the end.
 */
export function numberLinks(text: string): Promise<string> {
	return joined(numberedLinkPieces([text]));
}

/** Each segment of a text with its links numbered, holding back trailing whitespace (see numberedLinkPieces). */
class LinkNumbering {
	private readonly numbers = new Map<string, number>();
	private blanks = '';

	*numbered(segments: LinkSegment[]): Generator<string> {
		for (const segment of segments) {
			let out = '';
			let cursor = 0;
			for (const link of segment.links) {
				if (!this.numbers.has(link.url)) this.numbers.set(link.url, this.numbers.size + 1);
				out += `${segment.text.slice(cursor, link.index)}[${this.numbers.get(link.url)}]`;
				cursor = link.lastIndex;
			}
			out += segment.text.slice(cursor);
			const kept = out.trimEnd();
			if (kept) yield this.blanks + kept;
			this.blanks = kept ? out.slice(kept.length) : this.blanks + out;
		}
	}

	/** What ends the text: the whitespace held back when it has no link, else the list of links. */
	ending(): string {
		if (this.numbers.size === 0) return this.blanks;
		const list = [...this.numbers].map(([url, n]) => `[${n}] ${url}`).join('\n');
		// Three blank lines before the list, as Mailsac's text endpoint does.
		return `\n\n\n\n${list}\n`;
	}
}

/**
 * numberLinks on a text read in pieces, a piece at a time, exactly as on the whole text (links are found as in it: see
 * LinkSegmenter). Only trailing whitespace waits: it is dropped before the list when there are links, kept when none.
 */
export async function* numberedLinkPieces(text: AnyIterable<string>): AsyncGenerator<string> {
	const segmenter = new LinkSegmenter();
	const numbering = new LinkNumbering();
	for await (const piece of text) yield* numbering.numbered(segmenter.push(piece));
	yield* numbering.numbered(segmenter.end());
	const ending = numbering.ending();
	if (ending) yield ending;
}
