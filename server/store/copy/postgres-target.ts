import type { Pool } from 'pg';
import { openPostgresStore } from '../postgres/open';
import { PoolDb, describeTarget, openPool, prepared, targetOf, type Db } from '../postgres/database';
import { SearchIndex } from '../postgres/search-index';
import type { Schema, TableCopy } from './tables';

/** The target's own rows (its HMAC key, made when it was opened) do not make it a used database. */
const countsAsHeld = (table: TableCopy) => table.replacesOn === undefined;

/** Statements of at most this many parameters (PostgreSQL's limit is 65,535). */
const MAX_PARAMETERS = 60_000;

/** Addresses or domains read at a time, to index their mail. */
const PAGE = 1000;

/** The rows a copy of `table` may write in one statement. */
export const maxRowsPerStatement = (table: TableCopy) => Math.floor(MAX_PARAMETERS / table.columns.length);

/**
 * The PostgreSQL database copy-store fills. It is opened as a node opens it (server/store/postgres/open.ts: the schema
 * checked and brought up to this version's), then written in one transaction on a connection of its own, so a copy that
 * fails leaves nothing behind.
 */
export class PostgresTarget {
	private constructor(
		private readonly pool: Pool,
		private readonly db: PoolDb,
		/** host:port/database, for messages (never the password). */
		readonly where: string,
	) {}

	/** StoreOpenError (from the engine's open) for a database that cannot be reached, refuses us or is of a newer schema. */
	static async open(url: string): Promise<PostgresTarget> {
		await (await openPostgresStore(url, { node: `copy-store-${process.pid}`, role: 'admin' })).close();
		const target = targetOf(url);
		const pool = openPool(url, 1);
		return new PostgresTarget(pool, new PoolDb(pool, target), describeTarget(target));
	}

	/** Runs `copy` in one transaction: committed when it resolves, rolled back (leaving the database as it was) when it throws. */
	transaction<T>(copy: (writer: TargetWriter) => Promise<T>): Promise<T> {
		return this.db.transaction((tx) => copy(new TargetWriter(tx)));
	}

	close(): Promise<void> {
		return this.pool.end();
	}
}

/** Writes the copy, inside the target's transaction. */
export class TargetWriter {
	constructor(private readonly tx: Db) {}

	/** Every table of the target's schema and its columns. */
	async schema(): Promise<Schema> {
		const rows = await this.tx.rows<{ table_name: string; column_name: string }>(
			`SELECT c.table_name, c.column_name FROM information_schema.columns c
				JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
				WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' ORDER BY c.table_name, c.ordinal_position`,
		);
		const schema: Schema = new Map();
		for (const row of rows) schema.set(row.table_name, [...(schema.get(row.table_name) ?? []), row.column_name]);
		return schema;
	}

	/**
	 * Keeps every other writer off the tables until the copy commits (a node started on the database meanwhile waits), then
	 * names the tables that hold rows already: the copy goes only into an empty database.
	 */
	async lockAndListHeld(tables: TableCopy[]): Promise<string[]> {
		await this.tx.run(`LOCK TABLE ${[...tables.map((table) => table.name), 'messages_search'].join(', ')} IN EXCLUSIVE MODE`);
		const checked = tables.filter(countsAsHeld);
		const held = (await this.tx.row<Record<string, boolean>>(
			`SELECT ${checked.map((table) => `EXISTS (SELECT 1 FROM ${table.name}) AS ${table.name}`).join(', ')}`,
		))!;
		return checked.filter((table) => held[table.name]).map((table) => table.name);
	}

	/** Inserts rows of `table` (at most maxRowsPerStatement), their identity values kept. */
	async insert(table: TableCopy, rows: unknown[][]): Promise<void> {
		const sql = this.insertStatement(table, rows.length);
		// Batches of small rows are all full but the last: PostgreSQL parses and plans their statement once.
		const full = rows.length === maxRowsPerStatement(table);
		await this.tx.run(full ? prepared(`copy-${table.name}`, sql) : sql, rows.flat());
	}

	/**
	 * Indexes the mail of reserved addresses for account-wide search, as the engine does when an address is reserved. Run
	 * before the domains are copied: the engine indexes nothing when an address of an owned domain is reserved (its
	 * domain's claim did), so the mail of addresses reserved in owned domains is indexed here, and the rest of the owned
	 * domains' mail by indexOwnedDomains. How many messages it indexed.
	 */
	indexReservedAddresses(): Promise<number> {
		// An address without mail would add nothing.
		const withMail = `SELECT a.email AS key FROM addresses a
			WHERE a.email > $1 AND EXISTS (SELECT 1 FROM messages m WHERE m.inbox = a.email) ORDER BY a.email LIMIT ${PAGE}`;
		return this.indexing(withMail, (index, email) => index.reserved(email));
	}

	/** Indexes the mail of owned domains, as the engine does when a domain is claimed. How many messages it indexed. */
	indexOwnedDomains(): Promise<number> {
		const owned = `SELECT domain AS key FROM domains WHERE domain > $1 ORDER BY domain LIMIT ${PAGE}`;
		return this.indexing(owned, (index, domain) => index.claimed(domain));
	}

	/** Moves each identity's sequence past the highest value copied, so new rows get new ids. */
	async moveIdentities(tables: TableCopy[]): Promise<void> {
		for (const { name, identity } of tables) {
			if (!identity) continue;
			await this.tx.run(
				`SELECT setval(pg_get_serial_sequence($1, $2), highest) FROM (SELECT max(${identity}) AS highest FROM ${name}) m
					WHERE highest IS NOT NULL`,
				[name, identity],
			);
		}
	}

	/** Runs `add` for each key `sql` selects (see keys); how many entries the index gained. */
	private async indexing(sql: string, add: (index: SearchIndex, key: string) => Promise<void>): Promise<number> {
		const entries = async () => (await this.tx.row<{ n: number }>('SELECT count(*) AS n FROM messages_search'))!.n;
		const before = await entries();
		const index = new SearchIndex(this.tx);
		for await (const key of this.keys(sql)) await add(index, key);
		return (await entries()) - before;
	}

	/** The keys `sql` selects, a page at a time: `sql` takes the last key of the page before as $1, and orders by it. */
	private async *keys(sql: string): AsyncGenerator<string> {
		for (let after = ''; ;) {
			const page = await this.tx.rows<{ key: string }>(sql, [after]);
			if (page.length === 0) return;
			for (const { key } of page) yield key;
			after = page[page.length - 1].key;
		}
	}

	/** INSERT of `count` rows: identities kept (OVERRIDING SYSTEM VALUE); a row of a replacing table replaces the target's. */
	private insertStatement(table: TableCopy, count: number): string {
		const width = table.columns.length;
		const row = (r: number) => `(${table.columns.map((_, c) => `$${r * width + c + 1}`).join(', ')})`;
		const values = Array.from({ length: count }, (_, r) => row(r)).join(', ');
		const overriding = table.identity ? ' OVERRIDING SYSTEM VALUE' : '';
		const updated = table.columns.filter((column) => column !== table.replacesOn).map((column) => `${column} = excluded.${column}`);
		const replacing = table.replacesOn ? ` ON CONFLICT (${table.replacesOn}) DO UPDATE SET ${updated.join(', ')}` : '';
		return `INSERT INTO ${table.name} (${table.columns.join(', ')})${overriding} VALUES ${values}${replacing}`;
	}
}
