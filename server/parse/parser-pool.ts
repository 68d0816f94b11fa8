import { join } from 'node:path';
import { Piscina } from 'piscina';
import type { ParsedMail } from './parsed-mail';
import { unparsedMessage } from './parse-message';

/**
 * Parses raw messages on worker threads; a message the parser rejects, crashes on or takes
 * longer than `timeoutMs` for still yields a record (aborting ends the worker thread, so a
 * pathological message cannot keep a parser busy).
 */
export class ParserPool {
	private readonly pool: Piscina;

	constructor(
		workers: number,
		private readonly timeoutMs: number,
	) {
		this.pool = new Piscina({ filename: join(__dirname, 'parse-worker.js'), minThreads: workers, maxThreads: workers, idleTimeout: Infinity });
	}

	/** `raw` should live in a SharedArrayBuffer so the worker reads it without a copy. */
	async parse(raw: Uint8Array): Promise<{ parsed: ParsedMail; error?: Error }> {
		try {
			return { parsed: (await this.pool.run(raw, { signal: AbortSignal.timeout(this.timeoutMs) })) as ParsedMail };
		} catch (err) {
			return { parsed: unparsedMessage(raw), error: err as Error };
		}
	}

	close(): Promise<void> {
		return this.pool.destroy();
	}
}
