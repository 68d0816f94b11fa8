import { join } from 'node:path';
import { Piscina } from 'piscina';
import type { ParsedMail } from './parsed-mail';
import { unparsedMessage } from './parse-message';

/** Parses raw messages on worker threads; a message the parser rejects still yields a record. */
export class ParserPool {
	private readonly pool: Piscina;

	constructor(workers: number) {
		this.pool = new Piscina({ filename: join(__dirname, 'parse-worker.js'), minThreads: workers, maxThreads: workers, idleTimeout: Infinity });
	}

	/** `raw` should live in a SharedArrayBuffer so the worker reads it without a copy. */
	async parse(raw: Uint8Array): Promise<{ parsed: ParsedMail; error?: Error }> {
		try {
			return { parsed: (await this.pool.run(raw)) as ParsedMail };
		} catch (err) {
			return { parsed: unparsedMessage(raw), error: err as Error };
		}
	}

	close(): Promise<void> {
		return this.pool.destroy();
	}
}
