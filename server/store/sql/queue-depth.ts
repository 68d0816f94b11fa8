import type { QueueDepth } from '../store';
import type { SqlDb } from './sql-db';

/** A queue's rows by state at $1: held while a lease runs (lease_until >= now), else due or scheduled by next_attempt. */
const queueDepth = (table: string, pending: string) =>
	`SELECT count(*) FILTER (WHERE lease_until >= $1) AS held,
		count(*) FILTER (WHERE (lease_until IS NULL OR lease_until < $1) AND next_attempt <= $1) AS due,
		count(*) FILTER (WHERE (lease_until IS NULL OR lease_until < $1) AND next_attempt > $1) AS scheduled
	FROM ${table} WHERE ${pending}`;

const WEBHOOK_QUEUE = queueDepth('webhook_deliveries', "status = 'pending'");
// An outbox row lives only while a recipient is still to be delivered.
const OUTBOX_QUEUE = queueDepth('outbox', '1 = 1');

/** The webhook queue's and the outbox's rows by state at `now`, for /metrics (StoreFigures). */
export const webhookQueue = async (db: SqlDb, now: number): Promise<QueueDepth> => (await db.row<QueueDepth>(WEBHOOK_QUEUE, [now]))!;
export const outboxQueue = async (db: SqlDb, now: number): Promise<QueueDepth> => (await db.row<QueueDepth>(OUTBOX_QUEUE, [now]))!;
