import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Bytes kept in a spool file instead of memory (a large message, or a large attachment of one).
 * A plain object, so it crosses to parser threads and back unchanged.
 */
export interface SpooledBytes {
	spoolPath: string;
	byteLength: number;
}

/**
 * The spool large messages wait in as files (server/smtp/spool.ts): mail received over SMTP, and large mail composed or
 * delivered here by the outbox, all parsed in pieces from there.
 */
export interface MessageSpool {
	/** Messages at least this large are spooled. */
	readonly threshold: number;
	/** A new folder for one message; the path its raw source is written to. */
	create(): string;
	/** Removes a spooled message with what was parsed out of it; never throws. */
	remove(message: SpooledBytes): void;
}

/** A message as received: in memory (small ones, ideally in a SharedArrayBuffer) or spooled to a file. */
export type RawMessage = Uint8Array | SpooledBytes;

/** Whether content (bytes, or a body's text) is kept in a spool file rather than in memory. */
export function isSpooled(content: Uint8Array | string | SpooledBytes): content is SpooledBytes {
	return typeof content === 'object' && !(content instanceof Uint8Array);
}

/** The whole content in memory; only for the rare path that needs it at once (forwarding). */
export function rawBytes(bytes: Uint8Array | SpooledBytes): Buffer {
	return isSpooled(bytes) ? readFileSync(bytes.spoolPath) : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * The first `limit` bytes of spooled content at most (a message's header, say), read synchronously: a store reads them within
 * its transaction, which on SQLite awaits nothing but the store.
 */
export function spooledStart(bytes: SpooledBytes, limit: number): Buffer {
	const buffer = Buffer.allocUnsafe(Math.min(limit, bytes.byteLength));
	const fd = openSync(bytes.spoolPath, 'r');
	try {
		let filled = 0;
		for (let read = 1; read > 0 && filled < buffer.length; filled += read)
			read = readSync(fd, buffer, filled, buffer.length - filled, filled);
		return buffer.subarray(0, filled);
	} finally {
		closeSync(fd);
	}
}

/** Where the parser writes a file parsed out of a spooled message (an attachment, a body): beside it, so all go together. */
export function besideSpooled(message: SpooledBytes, name: string): string {
	return join(dirname(message.spoolPath), name);
}
