import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { rmSync } from 'node:fs';
import { openDatabase, type Db } from 'mailroom-server/dist/store/sqlite/database';
import { SqliteDb } from 'mailroom-server/dist/store/sqlite/sqlite-db';
import { tempDataDir } from '../../../helpers/mailroom';

describe('SqliteDb: the shared statements on one SQLite connection', () => {
	let dataDir: string;
	let db: Db;
	let sql: SqliteDb;
	beforeEach(() => {
		dataDir = tempDataDir();
		db = openDatabase(dataDir);
		db.exec('CREATE TABLE t (n INTEGER NOT NULL, flag INTEGER)');
		sql = new SqliteDb(db);
	});
	afterEach(() => {
		db.close();
		rmSync(dataDir, { recursive: true, force: true });
	});

	const values = async () => (await sql.rows<{ n: number }>('SELECT n FROM t ORDER BY rowid')).map((row) => row.n);

	it('binds numbered placeholders (each as often as it appears) and booleans as 1 and 0', async () => {
		expect(await sql.run('INSERT INTO t (n, flag) VALUES ($1, $2), ($1 + 1, $3)', [7, true, false])).toBe(2);
		expect(await sql.rows('SELECT n, flag FROM t ORDER BY n')).toEqual([
			{ n: 7, flag: 1 },
			{ n: 8, flag: 0 },
		]);
		expect(await sql.row('SELECT n FROM t WHERE n > $1', [100])).toBeUndefined();
		expect(await sql.row('INSERT INTO t (n) VALUES ($1) RETURNING n', [9])).toEqual({ n: 9 });
	});

	it('keeps a statement made while a transaction is open out of it: it runs after, and survives its rollback', async () => {
		let leave!: () => void;
		const held = new Promise<void>((resolve) => (leave = resolve));
		const failed = sql.transaction(async (tx) => {
			await tx.run('INSERT INTO t (n) VALUES (1)');
			await held;
			throw new Error('the work failed');
		});
		await new Promise((resolve) => setImmediate(resolve));
		const outside = sql.run('INSERT INTO t (n) VALUES (2)');
		const read = values();
		let outsideDone = false;
		void outside.then(() => (outsideDone = true));
		await new Promise((resolve) => setImmediate(resolve));
		expect(outsideDone).toBe(false);
		leave();
		await expect(failed).rejects.toThrow('the work failed');
		expect(await outside).toBe(1);
		// The read waited too, behind the insert asked for before it: it sees that insert and nothing of the rollback.
		expect(await read).toEqual([2]);
	});

	it("runs the statements a transaction's own work makes on the connection in that transaction, not after it", async () => {
		await expect(
			sql.transaction(async () => {
				await sql.run('INSERT INTO t (n) VALUES (1)'); // through the connection, not the transaction's handle
				await sql.transaction((inner) => inner.run('INSERT INTO t (n) VALUES (2)'));
				throw new Error('rolled back');
			}),
		).rejects.toThrow('rolled back');
		expect(await values()).toEqual([]);
	});

	it('runs transactions asked for at once one after the other, each committed or rolled back alone', async () => {
		const results = await Promise.allSettled([
			sql.transaction(async (tx) => {
				await tx.run('INSERT INTO t (n) VALUES (1)');
				await tx.run('INSERT INTO t (n) VALUES (2)');
			}),
			sql.transaction(async (tx) => {
				await tx.run('INSERT INTO t (n) VALUES (3)');
				await tx.run('INSERT INTO t (n) VALUES (NULL)'); // NOT NULL: fails, and takes 3 with it
			}),
			sql.transaction((tx) => tx.transaction((inner) => inner.run('INSERT INTO t (n) VALUES (4)'))), // nested: the same one
		]);
		expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
		expect(await values()).toEqual([1, 2, 4]);
		expect(db.inTransaction).toBe(false);
	});
});
