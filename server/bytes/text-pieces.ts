import { StringDecoder } from 'node:string_decoder';

/**
 * Bytes decoded at most this many at a time: strings this small are made and dropped in V8's young generation, which is
 * swept often and cheaply, where megabyte strings would pile up in the large-object space until a full collection.
 */
const DECODE_BYTES = 64 * 1024;

/** Bytes decoded a piece at a time, exactly as decoding them whole would (a character cut between pieces is kept whole). */
export function* decodedPieces(bytes: Iterable<Buffer>, encoding: 'utf8' | 'latin1' = 'utf8'): Generator<string> {
	const decoder = new StringDecoder(encoding);
	for (const piece of bytes) {
		const text = decoder.write(piece);
		if (text) yield text;
	}
	const rest = decoder.end();
	if (rest) yield rest;
}

/** `bytes` in slices of at most `size`. */
function* sliced(bytes: Iterable<Buffer>, size: number): Generator<Buffer> {
	for (const piece of bytes) for (let start = 0; start < piece.length; start += size) yield piece.subarray(start, start + size);
}

/** UTF-8 bytes decoded DECODE_BYTES at a time (see decodedPieces). */
export function utf8Pieces(bytes: Iterable<Buffer>): Generator<string> {
	return decodedPieces(sliced(bytes, DECODE_BYTES));
}

/** The first half of a surrogate pair: a piece ending in one must not be cut from the rest of its character. */
export const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * Text pieces re-cut so that none ends in a character (UTF-16 code unit) `mustWait` picks: that character moves to the
 * front of the next piece, so a rule about it can see what follows. Empty pieces are dropped.
 */
export function* holdingBack(pieces: Iterable<string>, mustWait: (code: number) => boolean): Generator<string> {
	let held = '';
	for (const piece of pieces) {
		const text = held + piece;
		held = text && mustWait(text.charCodeAt(text.length - 1)) ? text.slice(-1) : '';
		const ready = held ? text.slice(0, -1) : text;
		if (ready) yield ready;
	}
	if (held) yield held;
}

const CR = 0x0d;

/** Text with every line break written as CRLF, a piece at a time, exactly as on the whole text. */
export function* crlfPieces(text: Iterable<string>): Generator<string> {
	for (const piece of holdingBack(text, (code) => code === CR)) yield piece.replace(/\r?\n/g, '\r\n');
}
