import { mkdirSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { MessageSpool, SpooledBytes } from '../bytes/spooled-bytes';

/** How often removing a spooled message is tried, and how long apart. */
const REMOVE_ATTEMPTS = 5;
const REMOVE_RETRY_MS = 1000;

/**
 * The spool folder (`spool/` in the data folder) holds large messages while they are received,
 * parsed and copied into the database. Nothing in it is the stored copy of anything: a message
 * is acknowledged only once the database holds it, so whatever a crash leaves here is swept at
 * the next start.
 */
export class Spool implements MessageSpool {
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

	/**
	 * Removes a spooled message with everything parsed out of it. Never throws: a file that cannot be removed now (no file
	 * descriptor left, EMFILE) is tried again a few times, a second apart, and is swept at the next start at the latest.
	 */
	remove(message: SpooledBytes, attemptsLeft = REMOVE_ATTEMPTS): void {
		try {
			rmSync(dirname(message.spoolPath), { recursive: true, force: true });
		} catch {
			if (attemptsLeft > 1) setTimeout(() => this.remove(message, attemptsLeft - 1), REMOVE_RETRY_MS).unref();
		}
	}
}
