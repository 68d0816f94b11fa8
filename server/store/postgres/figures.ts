import type { QueueDepth, StoreFigures } from '../store';
import type { Db } from './database';

/** A queue's rows by state at $1: held while a lease runs (lease_until >= now), else due or scheduled by next_attempt. */
const queueDepth = (table: string, pending: string) =>
	`SELECT count(*) FILTER (WHERE lease_until >= $1) AS held,
		count(*) FILTER (WHERE (lease_until IS NULL OR lease_until < $1) AND next_attempt <= $1) AS due,
		count(*) FILTER (WHERE (lease_until IS NULL OR lease_until < $1) AND next_attempt > $1) AS scheduled
	FROM ${table} WHERE ${pending}`;

const WEBHOOK_QUEUE = queueDepth('webhook_deliveries', "status = 'pending'");
// An outbox row lives only while a recipient is still to be delivered.
const OUTBOX_QUEUE = queueDepth('outbox', 'true');

export class PostgresStoreFigures implements StoreFigures {
	constructor(private readonly db: Db) {}

	async webhookQueue(now: number): Promise<QueueDepth> {
		return (await this.db.row<QueueDepth>(WEBHOOK_QUEUE, [now]))!;
	}

	async outboxQueue(now: number): Promise<QueueDepth> {
		return (await this.db.row<QueueDepth>(OUTBOX_QUEUE, [now]))!;
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
