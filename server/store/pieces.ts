import { closeSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';

/** Size of one stored piece of a large message; every piece but the last of a content is exactly this long. */
export const PIECE_SIZE = 1024 * 1024;

/**
 * A file in whole pieces of PIECE_SIZE (the last may be shorter), read one at a time into one buffer, so memory holds a
 * piece and never the file: each piece must be used (written to the database, say) before the next is asked for.
 */
export async function* filePieces(path: string): AsyncGenerator<Buffer> {
	const buffer = Buffer.allocUnsafe(PIECE_SIZE);
	const file = await open(path, 'r');
	try {
		for (;;) {
			let filled = 0;
			for (let read = 1; read > 0 && filled < PIECE_SIZE; filled += read) {
				({ bytesRead: read } = await file.read(buffer, filled, PIECE_SIZE - filled, null));
			}
			if (filled === 0) return;
			yield buffer.subarray(0, filled);
			if (filled < PIECE_SIZE) return;
		}
	} finally {
		await file.close();
	}
}

/**
 * The same pieces read synchronously, for a SQLite transaction (whose work awaits nothing but the store) and a store written
 * once for both engines.
 */
export function* filePiecesSync(path: string): Generator<Buffer> {
	const buffer = Buffer.allocUnsafe(PIECE_SIZE);
	const fd = openSync(path, 'r');
	try {
		for (;;) {
			let filled = 0;
			for (let read = 1; read > 0 && filled < PIECE_SIZE; filled += read) read = readSync(fd, buffer, filled, PIECE_SIZE - filled, null);
			if (filled === 0) return;
			yield buffer.subarray(0, filled);
			if (filled < PIECE_SIZE) return;
		}
	} finally {
		closeSync(fd);
	}
}

/** The pieces (their seq, first and last) that hold `length` bytes from `offset`. */
export const piecesHolding = (offset: number, length: number) => ({
	first: Math.floor(offset / PIECE_SIZE),
	last: Math.floor((offset + length - 1) / PIECE_SIZE),
});

/** `length` bytes from `offset` out of consecutive pieces beginning with piece `first` (see piecesHolding). */
export function bytesOfPieces(pieces: Buffer[], first: number, offset: number, length: number): Buffer {
	const joined = pieces.length === 1 ? pieces[0] : Buffer.concat(pieces);
	const start = offset - first * PIECE_SIZE;
	return joined.subarray(start, start + length);
}
