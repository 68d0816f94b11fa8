import type { Db } from './database';

interface PendingWrite {
	write: () => unknown;
	resolve: (value: unknown) => void;
	reject: (err: unknown) => void;
}

/**
 * Group commit: writes queued in the same turn of the event loop share one transaction,
 * so a burst of messages pays one fsync instead of one each. Every promise resolves only
 * after its write is committed; a failing write is retried alone so it cannot sink the others.
 */
export class GroupCommit {
	private queue: PendingWrite[] = [];
	private scheduled = false;
	private idle: (() => void)[] = [];

	constructor(private readonly db: Db) {}

	run<T>(write: () => T): Promise<T> {
		return new Promise<T>((resolve, reject) => {
			this.queue.push({ write, resolve: resolve as (value: unknown) => void, reject });
			if (!this.scheduled) {
				this.scheduled = true;
				setImmediate(() => this.flush());
			}
		});
	}

	/** Resolves once everything queued so far is committed. */
	drained(): Promise<void> {
		if (!this.scheduled) return Promise.resolve();
		return new Promise((resolve) => this.idle.push(resolve));
	}

	private flush(): void {
		const batch = this.queue;
		this.queue = [];
		this.scheduled = false;
		try {
			const results = this.db.transaction(() => batch.map((pending) => pending.write()))();
			batch.forEach((pending, i) => pending.resolve(results[i]));
		} catch {
			for (const pending of batch) {
				try {
					pending.resolve(this.db.transaction(pending.write)());
				} catch (err) {
					pending.reject(err);
				}
			}
		}
		if (!this.scheduled) this.idle.splice(0).forEach((resolve) => resolve());
	}
}
