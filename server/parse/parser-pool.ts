import { join } from 'node:path';
import { Piscina } from 'piscina';
import type { ParsedMail } from '../mail/parsed-mail';
import { unparsedMessage } from './parse-message';
import type { BatchResult, ParseTask } from './parser-thread';
import { MAX_TASK_MESSAGES, newProgress, readProgress } from './parse-progress';
import { parseSimpleMessage } from './simple-message';
import { isSpooled, type RawMessage } from '../bytes/spooled-bytes';

/** A message the inline parser cannot read goes to a thread, which has the last word on it. */
function parseInline(raw: Uint8Array): ParsedMail | undefined {
	try {
		return parseSimpleMessage(raw);
	} catch {
		return undefined;
	}
}

interface Pending {
	raw: RawMessage;
	resolve: (outcome: ParseOutcome) => void;
}

export interface ParseOutcome {
	parsed: ParsedMail;
	error?: Error;
}

/** How often a task that has not begun (all threads busy) is looked at again. */
const NOT_BEGUN_RECHECK_MS = 100;

/**
 * Parses raw messages on worker threads (small single-part text ones inline, see simple-message);
 * a message the parser rejects, crashes on or takes longer than `timeoutMs` for still yields a
 * record (aborting ends the worker thread, so a pathological message cannot keep a parser busy). The timeout is per message and counts only
 * its own parse, not the wait for a thread or for the messages before it in a batch. Each thread
 * has at most one task: messages that arrive while it works (or in the same turn of the event
 * loop) go to it as one batch when it is free, because handing a task over costs the event loop
 * about as much as a small message's whole parse.
 */
export class ParserPool {
	private readonly pool: Piscina;
	private queue: Pending[] = [];
	private scheduled = false;
	/** Tasks on threads now: at most one per thread, so arrivals meanwhile gather into the next batch. */
	private running = 0;

	constructor(
		private readonly workers: number,
		private readonly timeoutMs: number,
	) {
		this.pool = new Piscina({
			filename: join(__dirname, 'parser-thread.js'),
			minThreads: workers,
			maxThreads: workers,
			idleTimeout: Infinity,
			// Workers wait on their message port rather than on a futex the event loop must signal.
			atomics: 'disabled',
		});
	}

	/** `raw` should live in a SharedArrayBuffer so the worker reads it without a copy. */
	parse(raw: RawMessage): Promise<ParseOutcome> {
		const simple = isSpooled(raw) ? undefined : parseInline(raw);
		if (simple) return Promise.resolve({ parsed: simple });
		return new Promise((resolve) => {
			this.queue.push({ raw, resolve });
			this.schedule();
		});
	}

	close(): Promise<void> {
		return this.pool.destroy();
	}

	private schedule(): void {
		if (this.scheduled || this.queue.length === 0) return;
		this.scheduled = true;
		setImmediate(() => this.dispatch());
	}

	private dispatch(): void {
		this.scheduled = false;
		while (this.running < this.workers && this.queue.length) {
			this.running++;
			void this.run(this.queue.splice(0, MAX_TASK_MESSAGES)).finally(() => {
				this.running--;
				this.schedule();
			});
		}
	}

	private async run(batch: Pending[]): Promise<void> {
		const progress = newProgress();
		const controller = new AbortController();
		const stopWatching = this.watch(progress, controller);
		let results: BatchResult[];
		try {
			const task: ParseTask = { raws: batch.map((pending) => pending.raw), progress };
			results = (await this.pool.run(task, { signal: controller.signal })) as BatchResult[];
		} catch (err) {
			const culprit = readProgress(progress)?.index;
			return this.recover(
				batch,
				culprit,
				controller.signal.aborted ? new Error(`parsing took longer than ${this.timeoutMs} ms`) : (err as Error),
			);
		} finally {
			stopWatching();
		}
		batch.forEach(({ raw, resolve }, i) => {
			const result = results[i];
			if ('parseError' in result) resolve({ parsed: unparsedMessage(raw), error: new Error(result.parseError) });
			else resolve({ parsed: result });
		});
	}

	/** Aborts the task once the message it is on has been parsing for `timeoutMs`. */
	private watch(progress: BigInt64Array, controller: AbortController): () => void {
		let timer: NodeJS.Timeout;
		const check = () => {
			const now = Date.now();
			const current = readProgress(progress);
			if (current && now - current.startedAt >= this.timeoutMs) return controller.abort();
			const next = current ? current.startedAt + this.timeoutMs - now : Math.min(this.timeoutMs, NOT_BEGUN_RECHECK_MS);
			timer = setTimeout(check, next);
		};
		timer = setTimeout(check, this.timeoutMs);
		return () => clearTimeout(timer);
	}

	/**
	 * After a timeout or a crashed thread: the message it was on is stored unparsed, the rest of the
	 * batch is parsed again. A task that failed before any message began fails as a whole.
	 */
	private async recover(batch: Pending[], culprit: number | undefined, error: Error): Promise<void> {
		if (culprit === undefined) {
			for (const { raw, resolve } of batch) resolve({ parsed: unparsedMessage(raw), error });
			return;
		}
		const { raw, resolve } = batch[culprit];
		resolve({ parsed: unparsedMessage(raw), error });
		const rest = batch.filter((_, i) => i !== culprit);
		if (rest.length) await this.run(rest);
	}
}
