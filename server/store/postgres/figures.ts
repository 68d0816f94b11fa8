import type { QueueDepth, StoreFigures } from '../store';
import { outboxQueue, webhookQueue } from '../sql/queue-depth';
import type { Db } from './database';

export class PostgresStoreFigures implements StoreFigures {
	constructor(private readonly db: Db) {}

	webhookQueue(now: number): Promise<QueueDepth> {
		return webhookQueue(this.db, now);
	}

	outboxQueue(now: number): Promise<QueueDepth> {
		return outboxQueue(this.db, now);
	}

	async sizeBytes(): Promise<number> {
		return (await this.db.row<{ bytes: number }>('SELECT pg_database_size(current_database()) AS bytes'))!.bytes;
	}

	/**
	 * The statistics' live-row count, which every node's commits keep up to date within a second or so: count(*) would read
	 * the whole table (or its smallest index) at every scrape.
	 */
	async messageCount(): Promise<number> {
		const row = await this.db.row<{ rows: number }>(
			"SELECT n_live_tup AS rows FROM pg_stat_user_tables WHERE relid = 'messages'::regclass",
		);
		return row?.rows ?? 0;
	}
}
