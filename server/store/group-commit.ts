import type { Db } from './database';

interface PendingWrite {
	write: () => unknown;
	resolve: (value: unknown) => void;
	reject: (err: unknown) => void;
}

/**
 * Group commit: queued writes share one transaction, and every promise resolves only once its
 * write is durable (`durable` is awaited after the commit, e.g. a WAL fsync). While one batch
 * waits for its fsync the next batch gathers, so under load each fsync (and each page write)
 * serves many messages. A failing write is retried alone so it cannot sink the others.
 */
export class GroupCommit {
	private queue: PendingWrite[] = [];
	private scheduled = false;
	private syncing: Promise<void> | null = null;

	constructor(
		private readonly db: Db,
		private readonly durable: () => Promise<void> = () => Promise.resolve(),
	) {}

	run<T>(write: () => T): Promise<T> {
		return new Promise<T>((resolve, reject) => {
			this.queue.push({ write, resolve: resolve as (value: unknown) => void, reject });
			this.schedule();
		});
	}

	/** Resolves once everything queued so far is committed and durable. */
	async drained(): Promise<void> {
		while (this.scheduled || this.syncing || this.queue.length) {
			await (this.syncing ?? new Promise((resolve) => setImmediate(resolve)));
		}
	}

	private schedule(): void {
		if (this.scheduled || this.syncing || this.queue.length === 0) return;
		this.scheduled = true;
		setImmediate(() => this.flush());
	}

	private flush(): void {
		this.scheduled = false;
		const batch = this.queue;
		this.queue = [];
		const outcomes = this.commit(batch);
		this.syncing = this.durable().then(
			() => outcomes.forEach((settle) => settle()),
			(err) => batch.forEach((pending) => pending.reject(err)),
		);
		void this.syncing.finally(() => {
			this.syncing = null;
			this.schedule();
		});
	}

	/** Commits the batch; returns, per write, how to settle its promise once durable. */
	private commit(batch: PendingWrite[]): (() => void)[] {
		try {
			const results = this.db.transaction(() => batch.map((pending) => pending.write())).immediate();
			return batch.map((pending, i) => () => pending.resolve(results[i]));
		} catch {
			return batch.map((pending) => {
				try {
					const result = this.db.transaction(pending.write).immediate();
					return () => pending.resolve(result);
				} catch (err) {
					return () => pending.reject(err);
				}
			});
		}
	}
}
