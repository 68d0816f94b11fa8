import { join } from 'node:path';
import { Piscina } from 'piscina';
import type { SanitizeTask } from './html-sanitizer-thread';
import type { MailHtmlOptions, SanitizedHtml } from './html-body';

/** An idle sanitiser thread ends after this long; the next body starts one again. */
const IDLE_MS = 60_000;

/**
 * Sanitises mail HTML on a thread of its own (see sanitizeMailHtml). On the event loop, one 18 MB body held up SMTP and
 * every other request for about 3 s. One thread: bodies are sanitised one after another, using at most one of the cores.
 */
export class HtmlSanitizer {
	private readonly pool = new Piscina({
		filename: join(__dirname, 'html-sanitizer-thread.js'),
		minThreads: 0,
		maxThreads: 1,
		idleTimeout: IDLE_MS,
	});

	sanitize(html: string, options: MailHtmlOptions): Promise<SanitizedHtml> {
		return this.pool.run({ html, ...options } satisfies SanitizeTask) as Promise<SanitizedHtml>;
	}

	close(): Promise<void> {
		return this.pool.destroy();
	}
}
