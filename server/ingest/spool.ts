import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';

/**
 * Bytes kept in a spool file instead of memory (a large message, or a large attachment of one).
 * A plain object, so it crosses to parser threads and back unchanged.
 */
export interface SpooledBytes {
	spoolPath: string;
	byteLength: number;
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

/** Where the parser writes a file parsed out of a spooled message (an attachment, a body): beside it, so all go together. */
export function besideSpooled(message: SpooledBytes, name: string): string {
	return join(dirname(message.spoolPath), name);
}

/**
 * The spool folder (`spool/` in the data folder) holds large messages while they are received,
 * parsed and copied into the database. Nothing in it is the stored copy of anything: a message
 * is acknowledged only once the database holds it, so whatever a crash leaves here is swept at
 * the next start.
 */
export class Spool {
	readonly dir: string;

	constructor(
		dataDir: string,
		/** Messages at least this large are spooled; smaller ones stay in memory. */
		readonly threshold: number,
	) {
		this.dir = join(dataDir, 'spool');
	}

	/** Empties the folder (left-overs of a crash) and makes sure it exists. */
	sweep(): void {
		rmSync(this.dir, { recursive: true, force: true });
		mkdirSync(this.dir, { recursive: true });
	}

	/** A new, empty folder for one message; returns the path its raw source is written to. */
	create(): string {
		const dir = join(this.dir, randomBytes(12).toString('hex'));
		mkdirSync(dir);
		return join(dir, 'message.eml');
	}

	/** Removes a spooled message with everything parsed out of it. */
	remove(message: SpooledBytes): void {
		rmSync(dirname(message.spoolPath), { recursive: true, force: true });
	}
}
