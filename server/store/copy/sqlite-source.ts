import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { StoreOpenError } from '../store';
import { DATABASE_FILE } from '../sqlite/database';
import { MIGRATIONS } from '../sqlite/migrations';
import type { Schema, TableCopy } from './tables';

/**
 * The SQLite store of a data folder, read for copy-store: opened read-only, and read as one snapshot (a read
 * transaction), so a server still running on it changes nothing of what is copied. Rows come one at a time, in the order
 * they were stored (rowid), each as an array of TableCopy's columns.
 */
export class SqliteSource {
	private constructor(
		private readonly db: Database.Database,
		readonly dir: string,
	) {}

	/** StoreOpenError, saying what to do, for a folder without a readable store of this version's schema. */
	static open(dataDir: string): SqliteSource {
		const dir = resolve(dataDir);
		const file = join(dir, DATABASE_FILE);
		if (!existsSync(file)) throw new StoreOpenError(`there is no Mailroom database in ${dir} (no ${DATABASE_FILE} there)`);
		let db: Database.Database;
		try {
			db = new Database(file, { readonly: true, fileMustExist: true });
			db.pragma('busy_timeout = 5000');
			// The snapshot begins at the first read, so read at once: everything later sees the store as it is now.
			db.exec('BEGIN');
			db.prepare('SELECT count(*) FROM sqlite_master').get();
		} catch (err) {
			throw new StoreOpenError(`cannot read the database in ${dir}: ${(err as Error).message}`);
		}
		const source = new SqliteSource(db, dir);
		try {
			source.checkVersion();
		} catch (err) {
			source.close();
			throw err;
		}
		return source;
	}

	/** Every table of the database and its columns. */
	schema(): Schema {
		const tables = this.db
			.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
			.pluck();
		const columns = this.db.prepare('SELECT name FROM pragma_table_info(?) ORDER BY cid').pluck();
		return new Map((tables.all() as string[]).map((name) => [name, columns.all(name) as string[]]));
	}

	count(table: TableCopy): number {
		return this.db.prepare(`SELECT count(*) FROM ${table.name}`).pluck().get() as number;
	}

	/** The table's rows, one at a time: only the row being copied is in memory. */
	rows(table: TableCopy): IterableIterator<unknown[]> {
		const read = table.columns.map((column) => table.readAs?.[column] ?? column);
		return this.db
			.prepare(`SELECT ${read.join(', ')} FROM ${table.name} ORDER BY rowid`)
			.raw()
			.iterate() as IterableIterator<unknown[]>;
	}

	close(): void {
		this.db.close();
	}

	/**
	 * The copy writes the tables of this version's schema: a store a newer Mailroom has written is refused, and one of an
	 * older version is upgraded first by starting this version on it (copying only reads).
	 */
	private checkVersion(): void {
		const version = this.db.pragma('user_version', { simple: true }) as number;
		if (version === 0) throw new StoreOpenError(`${DATABASE_FILE} in ${this.dir} holds no Mailroom store (no schema)`);
		if (version > MIGRATIONS.length) {
			throw new StoreOpenError(
				`the database in ${this.dir} was written by a newer Mailroom (schema ${version}; this version knows ${MIGRATIONS.length}): copy it with that version`,
			);
		}
		if (version < MIGRATIONS.length) {
			throw new StoreOpenError(
				`the database in ${this.dir} has schema ${version} of an older Mailroom (this version's is ${MIGRATIONS.length}): start this version's mailroom serve on it once (that upgrades it), stop it, then copy`,
			);
		}
	}
}
