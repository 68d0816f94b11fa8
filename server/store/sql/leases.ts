import type { SqlDb } from './sql-db';

/**
 * The statements of a table of leased work (webhook_deliveries, outbox): rows `pending` selects are attempted by one node
 * at a time, the one holding their lease (see Lease in store.ts).
 */
export class LeasedRows {
	constructor(
		private readonly db: SqlDb,
		private readonly table: string,
		private readonly key: string,
		private readonly pending: string,
	) {}

	/** SQL: rows due at $1 (now) and free to lease: never leased, or whose lease has run out. */
	static readonly FREE_AND_DUE = 'next_attempt <= $1 AND (lease_until IS NULL OR lease_until < $1)';

	/**
	 * Leases up to $2 rows due at $1 to $3 until $4, oldest first: their rows, `columns` of them. Rows another node is
	 * claiming at the same moment are skipped, not waited for (PostgreSQL): no row is leased twice.
	 */
	async claim<Row extends { next_attempt: number | null }>(now: number, limit: number, node: string, until: number, columns = '*') {
		const { table, key } = this;
		const rows = await this.db.rows<Row>(
			`UPDATE ${table} SET lease_node = $3, lease_until = $4 WHERE ${key} IN (SELECT ${key} FROM ${table}
				WHERE ${this.pending} AND ${LeasedRows.FREE_AND_DUE} ORDER BY next_attempt, ${key} LIMIT $2${this.db.dialect.skipLocked})
				RETURNING ${columns}`,
			[now, limit, node, until],
		);
		// RETURNING gives rows in the order they were updated, not the subquery's.
		const keyOf = (row: Row) => (row as Record<string, unknown>)[key] as string;
		return rows.sort((a, b) => a.next_attempt! - b.next_attempt! || (keyOf(a) < keyOf(b) ? -1 : 1));
	}

	/** Extends the leases `node` holds to `until`. */
	async renew(node: string, until: number): Promise<void> {
		await this.db.run(`UPDATE ${this.table} SET lease_until = $1 WHERE lease_node = $2 AND ${this.pending}`, [until, node]);
	}

	/** Gives up leases of `node`: all of them, or those of the rows whose key is among `ids`. */
	async release(node: string, ids?: string[]): Promise<void> {
		const release = `UPDATE ${this.table} SET lease_node = NULL, lease_until = NULL WHERE lease_node = $1`;
		if (ids === undefined) await this.db.run(release, [node]);
		else await this.db.run(`${release} AND ${this.db.dialect.inList(this.key, '$2')}`, [node, this.db.dialect.list(ids)]);
	}

	/**
	 * When the work is next due after `now`: an unleased row (or one whose lease has run out) at its next_attempt, a leased
	 * one once its lease has run out. Two index walks (by next_attempt, and the few leased rows) instead of a look at every row.
	 */
	async nextDue(now: number): Promise<number | undefined> {
		const { dialect } = this.db;
		const { table, pending } = this;
		const row = await this.db.row<{ next: number | null }>(
			`SELECT ${dialect.least(
				`(SELECT min(next_attempt) FROM ${table}
					WHERE ${pending} AND next_attempt > $1 AND (lease_until IS NULL OR lease_until < $1))`,
				`(SELECT min(${dialect.greatest('next_attempt', 'lease_until + 1')}) FROM ${table}
					WHERE ${pending} AND lease_node IS NOT NULL AND lease_until >= $1)`,
			)} AS next`,
			[now],
		);
		return row?.next ?? undefined;
	}
}
