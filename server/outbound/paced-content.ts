import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * The body or attachment of a composed message, handed to the composer in pieces when it is large.
 *
 * Given a whole string or Buffer, nodemailer encodes it in one go: its quoted-printable encoder builds the output a
 * character at a time, so a 24 MB text became a string of some 900 MB and held the event loop for seconds. Given a
 * stream, it encodes piece by piece; each piece here is PIECE_BYTES, and the event loop turns between pieces.
 */

/** Content up to this size is given whole: a few milliseconds of encoding, and a short plain text keeps its 7bit form. */
export const WHOLE_CONTENT_BYTES = 256 * 1024;
/** A multiple of 3 and of 57, so that base64 pieces end on a whole line (57 bytes make a 76-character line). */
const PIECE_BYTES = 3 * 57 * 384;

/** A text as UTF-8, a piece at a time (never the whole text as bytes at once); no piece ends inside a surrogate pair. */
async function* piecesOfText(text: string): AsyncGenerator<Buffer> {
	// A UTF-16 code unit is at most 3 bytes of UTF-8 (a pair of them 4), so a piece stays within PIECE_BYTES.
	const span = Math.floor(PIECE_BYTES / 3);
	for (let start = 0; start < text.length;) {
		let end = Math.min(text.length, start + span);
		if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
		yield Buffer.from(text.slice(start, end));
		start = end;
		await nextTurn();
	}
}

/** Base64 decoded a piece at a time: each piece is whole 4-character groups (PIECE_BYTES is a multiple of 3). */
async function* piecesOfBase64(base64: string): AsyncGenerator<Buffer> {
	const span = (PIECE_BYTES / 3) * 4;
	for (let start = 0; start < base64.length; start += span) {
		yield Buffer.from(base64.slice(start, start + span), 'base64');
		await nextTurn();
	}
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * Checked base64 (an attachment of a send) as the composer should take its bytes: decoded whole when small, else decoded
 * a piece at a time as it is composed, so the bytes are never whole in memory beside the request's base64 of them.
 */
export function pacedBase64(base64: string): Buffer | Readable {
	const bytes = (base64.length / 4) * 3 - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0);
	if (bytes <= WHOLE_CONTENT_BYTES) return Buffer.from(base64, 'base64');
	return Readable.from(piecesOfBase64(base64), { objectMode: false });
}

/** A text body as the composer should take it: whole when small, else a stream of pieces of its UTF-8. */
export function pacedContent(text: string): string | Readable {
	if (Buffer.byteLength(text) <= WHOLE_CONTENT_BYTES) return text;
	return Readable.from(piecesOfText(text), { objectMode: false });
}
