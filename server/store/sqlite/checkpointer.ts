import { once } from 'node:events';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Db } from './database';

/** How often the WAL is checkpointed: often enough to keep it small, rarely enough to batch the work. */
const CHECKPOINT_EVERY_MS = 500;
/** After a checkpoint, a WAL file that grew past this is truncated back to it. */
const WAL_SIZE_LIMIT = 64 * 1024 * 1024;
/** A WAL of this many frames (of a page each: 16 MB) is restarted, so that it stops growing even while mail keeps coming. */
const RESTART_AFTER_FRAMES = 4096;

/**
 * A connection that writes leaves checkpoints to the Checkpointer: otherwise SQLite checkpoints on
 * commit, and fsyncs the database file in the middle of ingest.
 */
export function leaveCheckpointsToCheckpointer(db: Db): void {
	db.pragma('wal_autocheckpoint = 0');
	db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
}

/**
 * Moves WAL checkpoints off the writing connections (the main one and the ingest thread's): a worker
 * thread checkpoints on its own connection instead.
 */
export class Checkpointer {
	private readonly worker: Worker;

	constructor(db: Db, { intervalMs = CHECKPOINT_EVERY_MS, restartAfterFrames = RESTART_AFTER_FRAMES } = {}) {
		leaveCheckpointsToCheckpointer(db);
		this.worker = new Worker(join(__dirname, 'checkpointer-thread.js'), { workerData: { path: db.name, intervalMs, restartAfterFrames } });
		this.worker.unref();
	}

	/** A last checkpoint, then the worker's connection is closed. */
	async close(): Promise<void> {
		const exited = once(this.worker, 'exit');
		// Unreferenced, the worker would let the process end before its last checkpoint.
		this.worker.ref();
		this.worker.postMessage('stop');
		await exited;
	}
}
