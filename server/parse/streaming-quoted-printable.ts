import type { Transform, TransformCallback } from 'node:stream';
import { Decoder as QuotedPrintableDecoder, decode } from 'libqp';

const EQUALS = 0x3d;
/** Bytes a piece must not end with: decoding strips trailing blanks and treats "=" or "=\r" at the end as a soft line break. */
const HELD_BACK = new Set([EQUALS, 0x20, 0x09, 0x0d]);

/**
 * Where `bytes` can be cut so that decoding the two sides apart gives what decoding them together
 * would: not within "=XX", not after a blank (it may end a line), "=" or CR (of a soft line break).
 */
function safeCut(bytes: Buffer): number {
	let cut = bytes.length;
	while (cut > 0 && (HELD_BACK.has(bytes[cut - 1]) || bytes[cut - 2] === EQUALS)) cut--;
	return cut;
}

/**
 * libqp's stream decoder (which mailsplit gives quoted-printable parts) gathers a part whole and
 * decodes it at the end. This makes one decode as the data streams: each chunk up to a safe cut, the
 * rest held for the next. Call before any data is written to it.
 */
export function decodeAsItStreams(decoder: Transform): void {
	if (!(decoder instanceof QuotedPrintableDecoder)) return;
	let held = Buffer.alloc(0);
	decoder._transform = (chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) => {
		const bytes = held.length ? Buffer.concat([held, chunk]) : chunk;
		const cut = safeCut(bytes);
		held = Buffer.from(bytes.subarray(cut));
		if (cut > 0) decoder.push(decode(bytes.subarray(0, cut)));
		done();
	};
	decoder._flush = (done: TransformCallback) => {
		if (held.length) decoder.push(decode(held));
		done();
	};
}
