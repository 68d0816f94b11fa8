import { StringDecoder } from 'node:string_decoder';

/** Pieces read at once or as they come (from the store, say). */
export type AnyIterable<T> = Iterable<T> | AsyncIterable<T>;

/**
 * Bytes decoded at most this many at a time: strings this small are made and dropped in V8's young generation, which is
 * swept often and cheaply, where megabyte strings would pile up in the large-object space until a full collection.
 */
const DECODE_BYTES = 64 * 1024;

/** A decoded piece, unless it is empty. */
function* nonEmpty(text: string): Generator<string> {
	if (text) yield text;
}

/** Bytes decoded a piece at a time, exactly as decoding them whole would (a character cut between pieces is kept whole). */
export function* decodedPieces(bytes: Iterable<Buffer>, encoding: 'utf8' | 'latin1' = 'utf8'): Generator<string> {
	const decoder = new StringDecoder(encoding);
	for (const piece of bytes) yield* nonEmpty(decoder.write(piece));
	yield* nonEmpty(decoder.end());
}

/** `bytes` in slices of at most `size`. */
async function* sliced(bytes: AnyIterable<Buffer>, size: number): AsyncGenerator<Buffer> {
	for await (const piece of bytes) for (let start = 0; start < piece.length; start += size) yield piece.subarray(start, start + size);
}

/** UTF-8 bytes decoded DECODE_BYTES at a time, exactly as decoding them whole would. */
export async function* utf8Pieces(bytes: AnyIterable<Buffer>): AsyncGenerator<string> {
	const decoder = new StringDecoder('utf8');
	for await (const piece of sliced(bytes, DECODE_BYTES)) yield* nonEmpty(decoder.write(piece));
	yield* nonEmpty(decoder.end());
}

/** The first half of a surrogate pair: a piece ending in one must not be cut from the rest of its character. */
export const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * Text pieces re-cut so that none ends in a character (UTF-16 code unit) `mustWait` picks: that character moves to the
 * front of the next piece, so a rule about it can see what follows. Empty pieces are dropped.
 */
export async function* holdingBack(pieces: AnyIterable<string>, mustWait: (code: number) => boolean): AsyncGenerator<string> {
	let held = '';
	for await (const piece of pieces) {
		const text = held + piece;
		held = text && mustWait(text.charCodeAt(text.length - 1)) ? text.slice(-1) : '';
		const ready = held ? text.slice(0, -1) : text;
		if (ready) yield ready;
	}
	if (held) yield held;
}

const CR = 0x0d;

/** Text with every line break written as CRLF, a piece at a time, exactly as on the whole text. */
export async function* crlfPieces(text: AnyIterable<string>): AsyncGenerator<string> {
	for await (const piece of holdingBack(text, (code) => code === CR)) yield piece.replace(/\r?\n/g, '\r\n');
}

/** All the pieces joined (for tests and small texts). */
export async function joined(pieces: AnyIterable<string>): Promise<string> {
	let text = '';
	for await (const piece of pieces) text += piece;
	return text;
}
