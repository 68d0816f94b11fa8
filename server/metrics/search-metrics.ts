import { Counter, Gauge, type Registry } from 'prom-client';
import { SearchAbandonedError, SearchTimeoutError } from '../store/search-budget';

/** How a search ended: answered, past --search-timeout, given up because its client went away, or failed otherwise. */
export type SearchEnd = 'answered' | 'timeout' | 'abandoned' | 'failed';
const ENDS: readonly SearchEnd[] = ['answered', 'timeout', 'abandoned', 'failed'];

const endOf = (err: unknown): SearchEnd =>
	err instanceof SearchTimeoutError ? 'timeout' : err instanceof SearchAbandonedError ? 'abandoned' : 'failed';

/**
 * Account-wide searches and filters (/api/inbox-search, /api/inbox-filter): how many run now, and how each ended. The
 * ones not answered say whether the limits of search-budget.ts stop work that nobody would read.
 */
export class SearchMetrics {
	private readonly running: Gauge;
	private readonly ended: Counter<'reason'>;

	constructor(registry: Registry) {
		const registers = [registry];
		this.running = new Gauge({
			name: 'mailroom_searches_running',
			help: 'Account-wide searches and filters running on this node now',
			registers,
		});
		this.ended = new Counter({
			name: 'mailroom_searches_ended_total',
			help: 'Account-wide searches and filters ended, by reason: answered, timeout (--search-timeout), abandoned (the client went away), failed',
			labelNames: ['reason'],
			registers,
		});
		for (const reason of ENDS) this.ended.inc({ reason }, 0);
	}

	/** Runs `search`, counted as running until it settles, then by how it ended. */
	async count<T>(search: () => Promise<T>): Promise<T> {
		this.running.inc();
		try {
			const result = await search();
			this.ended.inc({ reason: 'answered' });
			return result;
		} catch (err) {
			this.ended.inc({ reason: endOf(err) });
			throw err;
		} finally {
			this.running.dec();
		}
	}
}
