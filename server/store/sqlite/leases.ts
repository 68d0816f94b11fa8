import type { Db } from './database';

/** Gives up leases of `node` on `table`'s rows: all of them, or those whose `key` is among `ids`. */
export function releaseLeases(db: Db, table: string, key: string, node: string, ids?: string[]): void {
	const release = `UPDATE ${table} SET lease_node = NULL, lease_until = NULL WHERE lease_node = ?`;
	if (ids === undefined) db.prepare(release).run(node);
	else db.prepare(`${release} AND ${key} IN (SELECT value FROM json_each(?))`).run(node, JSON.stringify(ids));
}
