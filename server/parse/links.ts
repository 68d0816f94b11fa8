import LinkifyIt from 'linkify-it';
import { Parser } from 'htmlparser2';
import { bodyChunks, type MessageBody } from '../bytes/message-body';
import { isSpooled } from '../bytes/spooled-bytes';
import { isHighSurrogate } from '../bytes/text-pieces';

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

export interface TextLink {
	url: string;
	index: number;
	lastIndex: number;
}

/** Link detection over one text, which may come in several parts: the work budget spans them all. */
class TextLinkScan {
	readonly links: TextLink[] = [];
	private work = 0;

	scan(text: string): void {
		if (this.work >= MAX_SCAN_WORK || !text.includes(SCHEME_END)) return;
		for (const { 0: run, index } of text.matchAll(RUN)) {
			if (!worthScanning(run)) continue;
			for (const match of linkify.match(run) ?? []) {
				if (WEB_LINK.test(match.url)) this.links.push({ url: match.url, index: index + match.index, lastIndex: index + match.lastIndex });
			}
			this.work += run.length * (run.length + 1024);
			if (this.work >= MAX_SCAN_WORK) return;
		}
	}
}

/** URLs written in plain text, in order of appearance, with their positions. */
export function findTextLinks(text: string): TextLink[] {
	const scan = new TextLinkScan();
	scan.scan(text);
	return scan.links;
}

/**
 * Looks for '://' in UTF-8 text read in pieces: text without it has no link. Its bytes are ASCII, which occur in no
 * other character's, so it is looked for in the bytes, across the cuts between pieces.
 */
export class SchemeEndSearch {
	private tail: Buffer = Buffer.alloc(0);

	/** Whether '://' is in the text seen so far, `piece` its latest bytes. */
	foundIn(piece: Buffer): boolean {
		const overlap = SCHEME_END.length - 1;
		if (Buffer.concat([this.tail, piece.subarray(0, overlap)]).includes(SCHEME_END) || piece.includes(SCHEME_END)) return true;
		this.tail = piece.length >= overlap ? piece.subarray(-overlap) : Buffer.concat([this.tail, piece]).subarray(-overlap);
		return false;
	}
}

/** Whether a character ends a RUN (whitespace, U+FEFF excepted); ASCII is decided without a regular expression. */
const isRunBreak = (code: number) =>
	code < 0x80 ? code === 0x20 || (code >= 0x09 && code <= 0x0d) : code !== 0xfeff && /\s/.test(String.fromCharCode(code));

/** A text segment and the links in it, positions counted from the segment's start. */
export interface LinkSegment {
	text: string;
	links: TextLink[];
}

/**
 * A text read in chunks, cut again into segments that together are the whole text, each with its links, exactly as
 * findTextLinks finds them in the whole: each chunk is scanned up to its last whitespace and the rest goes with the
 * next, so no run is split. Of a run too long to hold a link only its end is carried (to keep it too long; the rest
 * is a segment without links), so memory stays bounded by the chunk size. Chunks are pushed in, so they may come from
 * a file or from the store alike.
 */
export class LinkSegmenter {
	private readonly scan = new TextLinkScan();
	private carried = '';

	/** The segments complete once `chunk`, the text's next chunk, is added. */
	push(chunk: string): LinkSegment[] {
		const text = this.carried + chunk;
		let end = text.length;
		while (end > 0 && !isRunBreak(text.charCodeAt(end - 1))) end--;
		let keep = Math.max(end, text.length - MAX_RUN_LENGTH - 1);
		// Never between the two halves of a surrogate pair: each segment must encode as it does within the whole.
		if (keep > end && isHighSurrogate(text.charCodeAt(keep - 1))) keep--;
		const segments: LinkSegment[] = [];
		if (end > 0) segments.push(this.scanned(text.slice(0, end)));
		if (keep > end) segments.push({ text: text.slice(end, keep), links: [] });
		this.carried = text.slice(keep);
		return segments;
	}

	/** The last segments, once the text has ended. */
	end(): LinkSegment[] {
		return this.carried ? [this.scanned(this.carried)] : [];
	}

	/** Only the segment's links are held: each is a slice of the chunk, and keeps all of it in memory. */
	private scanned(text: string): LinkSegment {
		this.scan.scan(text);
		return { text, links: this.scan.links.splice(0) };
	}
}

/** Adds the URLs in a body read in chunks to `found` (see LinkSegmenter). */
function addBodyTextLinks(body: MessageBody, found: LinkSet): void {
	if (!isSpooled(body)) return findTextLinks(body).forEach((link) => found.add(link.url));
	const segmenter = new LinkSegmenter();
	const add = (segments: LinkSegment[]) => segments.forEach(({ links }) => links.forEach((link) => found.add(link.url)));
	for (const chunk of bodyChunks(body)) add(segmenter.push(chunk));
	add(segmenter.end());
}

/** Adds the href targets of anchors and image maps in an HTML body to `found`. */
function addHtmlLinks(html: MessageBody, found: LinkSet): void {
	const parser = new Parser({
		onopentag(name, attributes) {
			const href = (name === 'a' || name === 'area') && attributes.href?.trim();
			if (href && WEB_LINK.test(href)) found.add(href);
		},
	});
	for (const chunk of bodyChunks(html)) parser.write(chunk);
	parser.end();
}

/** A record lists at most this many links: every listing returns them, so a link bomb must not bloat it. */
export const MAX_LINKS = 1000;

/** Distinct links in order of first appearance, up to MAX_LINKS (the rest are not kept). */
class LinkSet {
	readonly links = new Set<string>();

	add(url: string): void {
		if (this.links.size < MAX_LINKS) this.links.add(url);
	}
}

/** Each distinct URL found in the HTML and text bodies, in order of first appearance (at most MAX_LINKS). */
export function extractLinks(text: MessageBody, html: MessageBody | null): string[] {
	const found = new LinkSet();
	if (html) addHtmlLinks(html, found);
	addBodyTextLinks(text, found);
	return [...found.links];
}
