import { AsyncLocalStorage } from 'node:async_hooks';
import type { Statement } from 'better-sqlite3';
import type { Db } from './database';
import { SQLITE, type Sql, type SqlDb } from '../sql/sql-db';

/** Statements kept prepared, by their text: most are fixed, but some are made per call (an update of the fields given). */
const KEPT_STATEMENTS = 500;

/** A value as better-sqlite3 binds it: booleans as 0 and 1, as the schema keeps them. */
const bindable = (value: unknown) => (typeof value === 'boolean' ? (value ? 1 : 0) : value);

/** Numbered placeholders ($1, …) are SQLite's named parameters "1", …: bound from an object. */
function bound(params: unknown[]): Record<string, unknown>[] {
	if (params.length === 0) return [];
	const named: Record<string, unknown> = {};
	params.forEach((value, i) => (named[i + 1] = bindable(value)));
	return [named];
}

/** One connection's statements, prepared once and kept. */
class Statements {
	private readonly kept = new Map<string, Statement>();

	constructor(readonly db: Db) {}

	get(sql: Sql): Statement {
		const text = typeof sql === 'string' ? sql : sql.text;
		let statement = this.kept.get(text);
		if (statement) return statement;
		statement = this.db.prepare(text);
		this.kept.set(text, statement);
		if (this.kept.size > KEPT_STATEMENTS) this.kept.delete(this.kept.keys().next().value!);
		return statement;
	}

	rows<R>(sql: Sql, params: unknown[]): R[] {
		const statement = this.get(sql);
		if (statement.reader) return statement.all(...bound(params)) as R[];
		statement.run(...bound(params));
		return [];
	}

	run(sql: Sql, params: unknown[]): number {
		const statement = this.get(sql);
		return statement.reader ? statement.all(...bound(params)).length : statement.run(...bound(params)).changes;
	}
}

/** Settles with what `now` returns or throws: the contract is asynchronous, SQLite answers at once. */
function settled<T>(now: () => T): Promise<T> {
	try {
		return Promise.resolve(now());
	} catch (err) {
		return Promise.reject(err instanceof Error ? err : new Error(String(err)));
	}
}

/**
 * The statements of one transaction (or of reads made outside any, see SqlDb.outside): run at once on the connection,
 * which the transaction has to itself.
 */
class InTransaction implements SqlDb {
	readonly dialect = SQLITE;
	readonly outside: SqlDb = this;

	constructor(private readonly statements: Statements) {}

	rows<R>(sql: Sql, params: unknown[] = []): Promise<R[]> {
		return settled(() => this.statements.rows<R>(sql, params));
	}

	row<R>(sql: Sql, params: unknown[] = []): Promise<R | undefined> {
		return settled(() => this.statements.rows<R>(sql, params)[0]);
	}

	run(sql: Sql, params: unknown[] = []): Promise<number> {
		return settled(() => this.statements.run(sql, params));
	}

	transaction<T>(work: (tx: SqlDb) => Promise<T>): Promise<T> {
		return work(this);
	}
}

/** The transaction whose work is running (in this async context), so its own statements are told from others'. */
const workOf = new AsyncLocalStorage<symbol>();

/**
 * SqlDb on a better-sqlite3 connection. Its statements run at once, but for a transaction's: one connection has one
 * transaction, so while one is open (from its BEGIN to its COMMIT, across the awaits of its work) every other statement
 * and transaction on the connection waits for it, rather than joining it. Statements its work makes (through any part
 * of the store) run in it. A transaction's work must therefore await nothing but the store (whose promises SQLite settles
 * at once): the whole connection waits for it.
 *
 * Write transactions begin IMMEDIATE: they take the write lock at once, so a read at their start cannot be overtaken by
 * another connection's write (the ingest thread has a connection of its own).
 */
export class SqliteDb implements SqlDb {
	readonly dialect = SQLITE;
	private readonly statements: Statements;
	/** The statements of this connection's transactions, run at once: what the parts a transaction's work gets use. */
	readonly inTransaction: SqlDb;
	/** Settles when the open transaction ends; undefined when none is open. */
	private open: Promise<void> | undefined;
	/** The open transaction's token, which its work carries (see workOf). */
	private current: symbol | undefined;

	constructor(readonly db: Db) {
		this.statements = new Statements(db);
		this.inTransaction = new InTransaction(this.statements);
	}

	get outside(): SqlDb {
		return this.inTransaction;
	}

	rows<R>(sql: Sql, params: unknown[] = []): Promise<R[]> {
		return this.mustWait()
			? this.afterTransaction(() => this.statements.rows<R>(sql, params))
			: settled(() => this.statements.rows<R>(sql, params));
	}

	row<R>(sql: Sql, params: unknown[] = []): Promise<R | undefined> {
		return this.rows<R>(sql, params).then((rows) => rows[0]);
	}

	run(sql: Sql, params: unknown[] = []): Promise<number> {
		return this.mustWait()
			? this.afterTransaction(() => this.statements.run(sql, params))
			: settled(() => this.statements.run(sql, params));
	}

	async transaction<T>(work: (tx: SqlDb) => Promise<T>): Promise<T> {
		if (!this.mustWait() && this.open) return work(this.inTransaction); // the open transaction's own work: it joins it
		while (this.open) await this.open;
		let end!: () => void;
		this.open = new Promise((resolve) => (end = resolve));
		const token = (this.current = Symbol('transaction'));
		try {
			this.db.exec('BEGIN IMMEDIATE');
			try {
				const result = await workOf.run(token, () => work(this.inTransaction));
				this.db.exec('COMMIT');
				return result;
			} catch (err) {
				if (this.db.inTransaction) this.db.exec('ROLLBACK');
				throw err;
			}
		} finally {
			this.open = this.current = undefined;
			end();
		}
	}

	/** Whether a statement made now waits: a transaction is open, and this is not its work. */
	private mustWait(): boolean {
		return this.open !== undefined && workOf.getStore() !== this.current;
	}

	private async afterTransaction<T>(now: () => T): Promise<T> {
		while (this.mustWait()) await this.open;
		return now();
	}
}
