import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Db } from 'mailroom-server/dist/store/sqlite/database';
import { Checkpointer } from 'mailroom-server/dist/store/sqlite/checkpointer';
import { startTestMailroom } from '../../../helpers/mailroom';

const PAGE = 4096;
const RESTART_AFTER_FRAMES = 256; // 1 MB of WAL

/** Commits `rows` rows of 16 KB, four to a transaction, pausing a millisecond between them as the ingest thread does for its fsync. */
async function writeContinuously(db: Db, rows: number): Promise<number> {
	db.exec('CREATE TABLE filler (data BLOB)');
	const insert = db.prepare('INSERT INTO filler (data) VALUES (?)');
	const commit = db.transaction(() => {
		for (let i = 0; i < 4; i++) insert.run(Buffer.alloc(16 * 1024, i));
	});
	let largestWal = 0;
	for (let written = 0; written < rows; written += 4) {
		commit.immediate();
		largestWal = Math.max(largestWal, statSync(`${db.name}-wal`).size);
		await new Promise((resolve) => setTimeout(resolve, 1));
	}
	return largestWal;
}

describe('Checkpointer under writes that never pause', () => {
	let dir: string;
	let db: Db;
	beforeEach(() => {
		dir = mkdtempSync(join(tmpdir(), 'mailroom-checkpoint-'));
		db = openDatabase(dir);
	});
	afterEach(() => {
		db.close();
		rmSync(dir, { recursive: true, force: true });
	});

	it('restarts the WAL, so it stays small while far more than that is written through it', async () => {
		const checkpointer = new Checkpointer(db, { intervalMs: 20, restartAfterFrames: RESTART_AFTER_FRAMES });
		try {
			// 64 MB of rows: a WAL only ever checkpointed PASSIVE, always with a commit landing mid-checkpoint, holds all of it.
			const largestWal = await writeContinuously(db, 4096);
			expect(largestWal).toBeLessThan(16 * 1024 * 1024);
			expect(largestWal).toBeGreaterThan(RESTART_AFTER_FRAMES * PAGE);
		} finally {
			await checkpointer.close();
		}
		expect(db.prepare('SELECT count(*) FROM filler').pluck().get()).toBe(4096);
		expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
	});
});

describe('Checkpointer', () => {
	it('copies committed mail from the WAL into the database file in the background', async () => {
		const server = await startTestMailroom();
		try {
			const databaseFile = join(server.config.dataDir, 'mailroom.sqlite');
			const before = statSync(databaseFile).size;
			for (let i = 0; i < 10; i++) {
				await server.send({ from: 'a@sender.test', to: `cp${i}@example.test`, subject: `checkpoint ${i}`, text: 'x'.repeat(20_000) });
			}

			const deadline = Date.now() + 10_000;
			while (statSync(databaseFile).size <= before + 100_000 && Date.now() < deadline)
				await new Promise((resolve) => setTimeout(resolve, 100));
			expect(statSync(databaseFile).size).toBeGreaterThan(before + 100_000);
		} finally {
			await server.stop();
		}
	});
});
