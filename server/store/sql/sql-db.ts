/**
 * The statements both engines run alike. A part of the store written once (the files of this folder) speaks to either
 * engine through SqlDb: statements with PostgreSQL's numbered placeholders ($1, $2, …), which SQLite reads too, and the
 * few spellings that differ between the two through the Dialect. Each engine implements SqlDb: sqlite/sqlite-db.ts on
 * better-sqlite3, postgres/database.ts on node-postgres. What one engine does its own way (storing and searching mail,
 * large messages in pieces, migrations, locks) stays in sqlite/ and postgres/: docs/design.md says which is which.
 */

/** A statement run for every message or request: PostgreSQL prepares it once per connection (SQLite caches every statement). */
export interface Prepared {
	name: string;
	text: string;
}

export const prepared = (name: string, text: string): Prepared => ({ name: `mailroom-${name}`, text });

export type Sql = string | Prepared;

/** Statements on the database: outside a transaction, or inside the one this Db is bound to. */
export interface SqlDb {
	readonly dialect: Dialect;
	/** The rows of one statement. */
	rows<R>(sql: Sql, params?: unknown[]): Promise<R[]>;
	/** Its first row, if any. */
	row<R>(sql: Sql, params?: unknown[]): Promise<R | undefined>;
	/** How many rows it changed. */
	run(sql: Sql, params?: unknown[]): Promise<number>;
	/** Runs `work` in one write transaction: its own, or the one this Db is in already. */
	transaction<T>(work: (tx: SqlDb) => Promise<T>): Promise<T>;
	/** Statements that need not wait for this Db's transaction: reads made after it has ended (a message's pieces, read as it is sent). */
	readonly outside: SqlDb;
}

/** What the two engines spell differently. */
export interface Dialect {
	readonly engine: 'sqlite' | 'postgres';
	/** `expression` is one of the values bound at `placeholder` as list(values). */
	inList(expression: string, placeholder: string): string;
	/** A list of values as inList's placeholder takes it. */
	list(values: readonly (string | number)[]): unknown;
	/** The text values bound at `placeholder` as list(values), as rows of `alias` (`value`, and `key` in their order). */
	listRows(placeholder: string, alias: string): string;
	/** The smaller of two values, either of which may be NULL (then the other). */
	least(a: string, b: string): string;
	/** The larger of two values, neither NULL. */
	greatest(a: string, b: string): string;
	/**
	 * Locks the rows a read in a transaction selects until it ends, for the write after it. SQLite needs none: its write
	 * transactions hold the whole database from their start.
	 */
	readonly forUpdate: string;
	/** Skips rows another transaction has locked (claims of work by several nodes at once); nothing on SQLite. */
	readonly skipLocked: string;
}

export const SQLITE: Dialect = {
	engine: 'sqlite',
	inList: (expression, placeholder) => `${expression} IN (SELECT value FROM json_each(${placeholder}))`,
	list: (values) => JSON.stringify(values),
	listRows: (placeholder, alias) => `json_each(${placeholder}) AS ${alias}`,
	least: (a, b) => `coalesce(min(${a}, ${b}), ${a}, ${b})`,
	greatest: (a, b) => `max(${a}, ${b})`,
	forUpdate: '',
	skipLocked: '',
};

export const POSTGRES: Dialect = {
	engine: 'postgres',
	inList: (expression, placeholder) => `${expression} = ANY(${placeholder})`,
	list: (values) => values,
	listRows: (placeholder, alias) => `unnest(${placeholder}::text[]) WITH ORDINALITY AS ${alias} (value, key)`,
	least: (a, b) => `LEAST(${a}, ${b})`,
	greatest: (a, b) => `GREATEST(${a}, ${b})`,
	forUpdate: ' FOR UPDATE',
	skipLocked: ' FOR UPDATE SKIP LOCKED',
};
