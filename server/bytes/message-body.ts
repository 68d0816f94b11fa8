import { closeSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { isSpooled, type SpooledBytes } from './spooled-bytes';
import { decodedPieces } from './text-pieces';

/**
 * The text or HTML body of a message: a string, or (a large body of a spooled message) a UTF-8 file
 * in the message's spool folder, so that neither a parser thread nor the ingest thread ever holds it
 * whole. It is stored in pieces (see ContentPieces) and only read whole when served.
 */
export type MessageBody = string | SpooledBytes;

/** Bodies at least this large (bytes of UTF-8) stay in their file; smaller ones are read into a string. */
const LARGE_BODY_BYTES = 1024 * 1024;

/** How much of a body file is read at a time. */
const WINDOW_BYTES = 1024 * 1024;

/** What the built-in spam rules read of a large body: like SpamAssassin's size limit, a bound on the work per message. */
const SAMPLE_BYTES = 1024 * 1024;

/** A piece of a body to be written out: text as it is, or the contents of a file. */
export type BodySegment = string | { file: string };

/**
 * Writes `segments` one after another into `path`, copying files a window at a time; returns the
 * body: read back into a string when it is small, otherwise the file.
 */
export function assembleBody(segments: Iterable<BodySegment>, path: string): MessageBody {
	const out = openSync(path, 'w');
	let byteLength = 0;
	try {
		for (const segment of segments) {
			if (typeof segment === 'string') byteLength += writeSync(out, segment);
			else for (const window of fileWindows(segment.file)) byteLength += writeSync(out, window);
		}
	} finally {
		closeSync(out);
	}
	const body = { spoolPath: path, byteLength };
	if (byteLength >= LARGE_BODY_BYTES) return body;
	let text = '';
	for (const chunk of bodyChunks(body)) text += chunk;
	return text;
}

/** The start of a body (at most about SAMPLE_BYTES), for checks that need not read all of it. */
export function bodySample(body: MessageBody): string {
	if (!isSpooled(body)) return body;
	for (const chunk of bodyChunks(body, SAMPLE_BYTES)) return chunk;
	return '';
}

/** A body as strings of about `size` bytes (no character split); a string body is one chunk. */
export function* bodyChunks(body: MessageBody, size = WINDOW_BYTES, encoding: 'utf8' | 'latin1' = 'utf8'): Generator<string> {
	if (!isSpooled(body)) {
		yield body;
		return;
	}
	yield* decodedPieces(fileWindows(body.spoolPath, size), encoding);
}

/** A file's bytes, `size` at a time, in one reused buffer (copy what must outlive the next step). */
function* fileWindows(path: string, size = WINDOW_BYTES): Generator<Buffer> {
	const buffer = Buffer.allocUnsafe(Math.min(size, Math.max(statSync(path).size, 1)));
	const fd = openSync(path, 'r');
	try {
		for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer)) yield buffer.subarray(0, read);
	} finally {
		closeSync(fd);
	}
}
