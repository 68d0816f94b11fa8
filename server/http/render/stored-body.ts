import { Readable } from 'node:stream';
import { storedPieces, type PiecedBytes, type StoredBytes } from '../../bytes/stored-bytes';
import type { MessageContent } from '../../mail/message-content';
import { utf8Pieces, type AnyIterable } from '../../bytes/text-pieces';
import { htmlFromText, htmlFromTextPieces } from './html-body';
import { SchemeEndSearch } from '../../parse/links';
import { numberLinks, numberedLinkPieces } from './numbered-links';
import { piecedBody, type PiecedBody } from '../../bytes/pieced-body';
import { jsonBytes } from '../../bytes/streamed-json';

/**
 * A response body and its length in bytes, sent as Content-Length: a large (pieced) one is a stream, never whole in
 * memory. Should its message be deleted while it streams, the stream fails (DeletedWhileReadError) and the connection
 * is cut short of that length, which clients see as an incomplete response.
 */
export interface SizedBody {
	length: number;
	body: Buffer | Readable;
}

/** Stored bytes as a response body: pieced ones stream a piece at a time, as stored. */
export function storedBody(bytes: StoredBytes): SizedBody {
	return { length: bytes.length, body: Buffer.isBuffer(bytes) ? bytes : Readable.from(storedPieces(bytes)) };
}

const wholeBody = (text: string): SizedBody => storedBody(Buffer.from(text));

/** A measured body as a response body: a large one is made again, a piece at a time, as it is sent. */
const sentBody = (made: PiecedBody): SizedBody => ({ length: made.length, body: Readable.from(made.pieces()) });

/**
 * A pieced UTF-8 text made into another a piece at a time by `make`: measured first (letting the event loop run
 * between megabytes), then made again as it is sent.
 */
async function madeBody(text: PiecedBytes, make: (text: AnyIterable<string>) => AsyncIterable<string>): Promise<SizedBody> {
	return sentBody(
		await piecedBody(async function* () {
			for await (const piece of make(utf8Pieces(storedPieces(text)))) yield Buffer.from(piece);
		}),
	);
}

/**
 * A value as a JSON response body, exactly as webhooks are sent it (jsonPieces): its streamed strings (a large
 * message's text, HTML and raw source) are read from their stored pieces, never whole in memory.
 */
export async function jsonBody(value: unknown): Promise<SizedBody> {
	return sentBody(await piecedBody(() => jsonBytes(value)));
}

/** Whether a pieced text may hold a link (see SchemeEndSearch), read a piece a turn of the event loop (25 MB take some 30 ms). */
async function mayHoldLinks(text: PiecedBytes): Promise<boolean> {
	const search = new SchemeEndSearch();
	for await (const piece of storedPieces(text)) {
		if (search.foundIn(piece)) return true;
		await new Promise(setImmediate);
	}
	return false;
}

/** The text route's body: the text with its links numbered (numberLinks); a large one without a link streams as stored. */
export async function numberedTextBody(content: MessageContent): Promise<SizedBody> {
	const text = await content.textBytes();
	if (Buffer.isBuffer(text)) return wholeBody(await numberLinks(text.toString()));
	return (await mayHoldLinks(text)) ? madeBody(text, numberedLinkPieces) : storedBody(text);
}

/** The dirty route's body: the HTML as stored or, for mail without an HTML part, a page showing its text (htmlFromText). */
export async function dirtyHtmlBody(content: MessageContent): Promise<SizedBody> {
	const html = await content.htmlBytes();
	if (html) return storedBody(html);
	const text = await content.textBytes();
	return Buffer.isBuffer(text) ? wholeBody(htmlFromText(text.toString())) : madeBody(text, htmlFromTextPieces);
}
