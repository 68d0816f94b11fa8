import { countLargeMessageBytes } from './garbage';

/** Bytes stored in pieces: their length, and piece `seq` read only when asked for (a reader takes them one at a time). */
export interface PiecedBytes {
	length: number;
	piece(seq: number): Promise<Buffer | undefined>;
}

/** Bytes as stored: whole, or (a large message's) in pieces. */
export type StoredBytes = Buffer | PiecedBytes;

/** Stored pieces ended early: their message was deleted while they were read. */
export class DeletedWhileReadError extends Error {
	constructor() {
		super('the message was deleted while it was being read');
	}
}

/**
 * The pieces of stored bytes in order, each read when the one before it has been used. Pieces that end early (their
 * message deleted while they were read) throw DeletedWhileReadError rather than pass for the whole.
 */
export async function* storedPieces(bytes: StoredBytes): AsyncGenerator<Buffer> {
	if (Buffer.isBuffer(bytes)) {
		yield bytes;
		return;
	}
	let read = 0;
	for (let seq = 0, piece = await bytes.piece(0); piece; piece = await bytes.piece(++seq)) {
		read += piece.length;
		// A webhook, websocket frame or download made of them drops each piece soon after: collect as ingest does.
		countLargeMessageBytes(piece.length);
		yield piece;
	}
	if (read !== bytes.length) throw new DeletedWhileReadError();
}
