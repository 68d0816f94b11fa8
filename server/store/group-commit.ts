import { performance } from 'node:perf_hooks';
import type { CommitFigures } from './store';

/** How an engine runs work in one transaction: begin, the work with parts bound to it, commit (roll back if it throws). */
export type Transact<Parts> = <T>(work: (parts: Parts) => Promise<T>) => Promise<T>;

interface PendingWrite<Parts> {
	write: (parts: Parts) => Promise<unknown>;
	resolve: (value: unknown) => void;
	reject: (err: unknown) => void;
}

/**
 * Group commit: queued writes share one transaction, and every promise resolves only once its write is durable
 * (`durable` is awaited after the commit, e.g. a WAL fsync). While one batch commits and waits for its fsync the next
 * batch gathers, so under load each commit (and each fsync) serves many messages. A failing write is retried alone so it
 * cannot sink the others. The writes of a batch run one after another.
 */
export class GroupCommit<Parts> {
	private queue: PendingWrite<Parts>[] = [];
	private busy = false;
	private idle: Promise<void> = Promise.resolve();
	private readonly commitListeners: ((commit: CommitFigures) => void)[] = [];

	constructor(
		private readonly transact: Transact<Parts>,
		private readonly durable: () => Promise<void> = () => Promise.resolve(),
	) {}

	run<T>(write: (parts: Parts) => Promise<T>): Promise<T> {
		return new Promise<T>((resolve, reject) => {
			this.queue.push({ write, resolve: resolve as (value: unknown) => void, reject });
			this.schedule();
		});
	}

	/** Calls `listener` with the figures of each batch once it is durable, before its writes' promises settle. */
	onCommit(listener: (commit: CommitFigures) => void): void {
		this.commitListeners.push(listener);
	}

	/** Resolves once everything queued so far is committed and durable. */
	async drained(): Promise<void> {
		while (this.busy || this.queue.length) await this.idle;
	}

	private schedule(): void {
		if (this.busy || this.queue.length === 0) return;
		this.busy = true;
		// setImmediate: writes queued in the same turn of the event loop join the batch.
		this.idle = new Promise<void>((done) =>
			setImmediate(
				() =>
					void this.flush().finally(() => {
						this.busy = false;
						done();
						this.schedule();
					}),
			),
		);
	}

	private async flush(): Promise<void> {
		const batch = this.queue;
		this.queue = [];
		const began = performance.now();
		const outcomes = await this.commit(batch);
		const committed = performance.now();
		try {
			await this.durable();
		} catch (err) {
			batch.forEach((pending) => pending.reject(err));
			return;
		}
		const figures = { writes: batch.length, transactionMs: committed - began, durableMs: performance.now() - committed };
		this.commitListeners.forEach((listener) => listener(figures));
		outcomes.forEach((settle) => settle());
	}

	/** Commits the batch; returns, per write, how to settle its promise once durable. */
	private async commit(batch: PendingWrite<Parts>[]): Promise<(() => void)[]> {
		try {
			const results = await this.transact(async (parts) => {
				const done: unknown[] = [];
				for (const pending of batch) done.push(await pending.write(parts));
				return done;
			});
			return batch.map((pending, i) => () => pending.resolve(results[i]));
		} catch {
			const outcomes: (() => void)[] = [];
			for (const pending of batch) {
				try {
					const result = await this.transact((parts) => pending.write(parts));
					outcomes.push(() => pending.resolve(result));
				} catch (err) {
					outcomes.push(() => pending.reject(err));
				}
			}
			return outcomes;
		}
	}
}
