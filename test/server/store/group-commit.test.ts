import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { openDatabase, type Db } from 'mailroom-server/dist/store/sqlite/database';
import { GroupCommit } from 'mailroom-server/dist/store/group-commit';
import { WalSync } from 'mailroom-server/dist/store/sqlite/wal-sync';
import { SqliteDb } from 'mailroom-server/dist/store/sqlite/sqlite-db';
import { tempDataDir } from '../../helpers/mailroom';

/** A durability step the test releases by hand, counting how often it was asked for. */
function manualDurability() {
	const waiting: (() => void)[] = [];
	return {
		calls: 0,
		durable(): Promise<void> {
			this.calls++;
			return new Promise((resolve) => waiting.push(resolve));
		},
		releaseAll() {
			waiting.splice(0).forEach((resolve) => resolve());
		},
	};
}

describe('GroupCommit', () => {
	let db: Db;
	let dataDir: string;
	beforeEach(() => {
		dataDir = tempDataDir();
		db = openDatabase(dataDir);
		db.exec('CREATE TABLE t (n INTEGER NOT NULL CHECK (n >= 0))');
	});
	afterEach(() => {
		db.close();
	});

	// Runs inside the transaction's async work, so a statement that throws rejects the write.
	const insert = (n: number) => () => Promise.resolve().then(() => db.prepare('INSERT INTO t (n) VALUES (?)').run(n).lastInsertRowid);
	const groupCommit = (durable?: () => Promise<void>) => {
		const sql = new SqliteDb(db);
		return new GroupCommit((work) => sql.transaction(() => work(undefined)), durable);
	};

	it('acknowledges writes only after they are committed and durable', async () => {
		const sync = manualDurability();
		const commit = groupCommit(() => sync.durable());
		let acknowledged = 0;
		const writes = [1, 2, 3].map((n) => commit.run(insert(n)).then(() => acknowledged++));
		await new Promise((resolve) => setImmediate(resolve));
		// Committed (another connection sees it) but not yet acknowledged.
		const reader = new Database(join(dataDir, 'mailroom.sqlite'), { readonly: true });
		expect(reader.prepare('SELECT count(*) AS c FROM t').get()).toEqual({ c: 3 });
		reader.close();
		expect(acknowledged).toBe(0);
		sync.releaseAll();
		await Promise.all(writes);
		expect(acknowledged).toBe(3);
		expect(sync.calls).toBe(1);
	});

	it('gathers the writes that arrive during a sync into the next batch', async () => {
		const sync = manualDurability();
		const commit = groupCommit(() => sync.durable());
		const first = commit.run(insert(1));
		await new Promise((resolve) => setImmediate(resolve));
		const later = Array.from({ length: 50 }, (_, i) => commit.run(insert(i + 2)));
		await new Promise((resolve) => setImmediate(resolve));
		expect(sync.calls).toBe(1); // the 50 wait for the first sync
		sync.releaseAll();
		await first;
		for (let turn = 0; turn < 10 && sync.calls < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
		expect(sync.calls).toBe(2); // then share one transaction and one sync
		sync.releaseAll();
		await Promise.all(later);
		await commit.drained();
		expect(db.prepare('SELECT count(*) AS c FROM t').get()).toEqual({ c: 51 });
	});

	it('rejects only the write that fails', async () => {
		const commit = groupCommit();
		const results = await Promise.allSettled([commit.run(insert(1)), commit.run(insert(-1)), commit.run(insert(2))]);
		expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
		expect(db.prepare('SELECT n FROM t ORDER BY n').all()).toEqual([{ n: 1 }, { n: 2 }]);
	});

	it('holds the write lock from the start of a batch, so another writing connection cannot slip in between a read and a write', async () => {
		// The ingest thread and the main thread each write on a connection of their own.
		const other = new Database(db.name);
		other.pragma('busy_timeout = 0');
		const commit = groupCommit();
		await commit.run(() => {
			db.prepare('SELECT count(*) FROM t').get();
			expect(() => other.prepare('INSERT INTO t (n) VALUES (1)').run()).toThrow(/locked|busy/i);
			return Promise.resolve(db.prepare('INSERT INTO t (n) VALUES (2)').run());
		});
		other.close();
		expect(db.prepare('SELECT n FROM t').all()).toEqual([{ n: 2 }]);
	});

	it('works with a real WAL fsync, sharing one among callers waiting together', async () => {
		const walSync = new WalSync(`${db.name}-wal`);
		const commit = groupCommit(() => walSync.sync());
		const ids = await Promise.all(Array.from({ length: 200 }, (_, i) => commit.run(insert(i))));
		expect(new Set(ids).size).toBe(200);
		const syncs = Array.from({ length: 20 }, () => walSync.sync());
		expect(new Set(syncs).size).toBeLessThanOrEqual(2);
		await Promise.all(syncs);
		walSync.close();
	});
});
