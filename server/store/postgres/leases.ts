import type { Db } from './database';

/**
 * SQL: when the work of `table` (webhook_deliveries or outbox) is next due after $1 (now), for the rows `pending` selects:
 * an unleased row (or one whose lease has run out) at its next_attempt, a leased one once its lease has run out. Two
 * index walks (by next_attempt, and the few leased rows) instead of a look at every row.
 */
export const nextDueSql = (table: string, pending: string) => `SELECT LEAST(
		(SELECT min(next_attempt) FROM ${table}
			WHERE ${pending} AND next_attempt > $1 AND (lease_until IS NULL OR lease_until < $1)),
		(SELECT min(GREATEST(next_attempt, lease_until + 1)) FROM ${table}
			WHERE ${pending} AND lease_node IS NOT NULL AND lease_until >= $1)
	) AS next`;

/** SQL: rows that are due at $1 (now) and free to lease: never leased, or whose lease has run out. */
export const FREE_AND_DUE = 'next_attempt <= $1 AND (lease_until IS NULL OR lease_until < $1)';

/** Gives up leases of `node` on `table`'s rows: all of them, or those whose `key` is among `ids`. */
export async function releaseLeases(db: Db, table: string, key: string, node: string, ids?: string[]): Promise<void> {
	const release = `UPDATE ${table} SET lease_node = NULL, lease_until = NULL WHERE lease_node = $1`;
	if (ids === undefined) await db.run(release, [node]);
	else await db.run(`${release} AND ${key} = ANY($2::text[])`, [node, ids]);
}
