import { join } from 'node:path';
import { Piscina } from 'piscina';
import type { ParsedMail } from './parsed-mail';
import { unparsedMessage } from './parse-message';
import type { BatchResult } from './parse-worker';

interface Pending {
	raw: Uint8Array;
	resolve: (outcome: ParseOutcome) => void;
}

export interface ParseOutcome {
	parsed: ParsedMail;
	error?: Error;
}

/**
 * Parses raw messages on worker threads; a message the parser rejects, crashes on or takes
 * longer than `timeoutMs` for still yields a record (aborting ends the worker thread, so a
 * pathological message cannot keep a parser busy). Messages that arrive in the same turn of
 * the event loop go to a worker as one batch: handing a task over costs the event loop
 * about as much as a small message's whole parse.
 */
export class ParserPool {
	private readonly pool: Piscina;
	private queue: Pending[] = [];
	private scheduled = false;

	constructor(
		workers: number,
		private readonly timeoutMs: number,
	) {
		this.pool = new Piscina({
			filename: join(__dirname, 'parse-worker.js'),
			minThreads: workers,
			maxThreads: workers,
			idleTimeout: Infinity,
			// Workers wait on their message port rather than on a futex the event loop must signal.
			atomics: 'disabled',
		});
	}

	/** `raw` should live in a SharedArrayBuffer so the worker reads it without a copy. */
	parse(raw: Uint8Array): Promise<ParseOutcome> {
		return new Promise((resolve) => {
			this.queue.push({ raw, resolve });
			if (this.scheduled) return;
			this.scheduled = true;
			setImmediate(() => this.dispatch());
		});
	}

	close(): Promise<void> {
		return this.pool.destroy();
	}

	private dispatch(): void {
		this.scheduled = false;
		const batch = this.queue;
		this.queue = [];
		if (batch.length === 1) void this.parseOne(batch[0]);
		else void this.parseBatch(batch);
	}

	private async parseOne({ raw, resolve }: Pending): Promise<void> {
		try {
			resolve({ parsed: (await this.pool.run(raw, { signal: AbortSignal.timeout(this.timeoutMs) })) as ParsedMail });
		} catch (err) {
			resolve({ parsed: unparsedMessage(raw), error: err as Error });
		}
	}

	private async parseBatch(batch: Pending[]): Promise<void> {
		let results: BatchResult[];
		try {
			const signal = AbortSignal.timeout(this.timeoutMs * batch.length);
			results = (await this.pool.run(batch.map((pending) => pending.raw), { signal })) as BatchResult[];
		} catch {
			// A timeout or a crashed worker: find the culprit by parsing each message alone.
			await Promise.all(batch.map((pending) => this.parseOne(pending)));
			return;
		}
		batch.forEach(({ raw, resolve }, i) => {
			const result = results[i];
			if ('parseError' in result) resolve({ parsed: unparsedMessage(raw), error: new Error(result.parseError) });
			else resolve({ parsed: result });
		});
	}
}
