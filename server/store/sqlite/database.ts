import Database from 'better-sqlite3';
import { mkdirSync, accessSync, constants } from 'node:fs';
import { join, resolve } from 'node:path';
import { StoreOpenError } from '../store';
import { messageIdsIn, threadDigest } from '../../mail/threading';
import { MIGRATIONS } from './migrations';

export type Db = Database.Database;

export const DATABASE_FILE = 'mailroom.sqlite';

/**
 * Opens (and creates or upgrades) the database in the data folder.
 * WAL lets API reads run beside ingest writes. synchronous=NORMAL: commits survive a process
 * crash; WalSync adds the fsync that makes acknowledged writes survive power loss too.
 *
 * Two connections write: the main thread's and the ingest thread's. So every write transaction
 * begins IMMEDIATE (`db.transaction(...).immediate()`): one that began by reading could not start
 * writing once the other connection had committed (SQLITE_BUSY at once, without the busy wait).
 */
export function openDatabase(dataDir: string): Db {
	const dir = resolve(dataDir);
	try {
		mkdirSync(dir, { recursive: true });
		accessSync(dir, constants.R_OK | constants.W_OK);
	} catch (err) {
		throw new StoreOpenError(`data folder ${dir} is not usable: ${(err as Error).message}`);
	}
	let db: Db;
	try {
		db = new Database(join(dir, DATABASE_FILE));
		db.pragma('journal_mode = WAL');
	} catch (err) {
		throw new StoreOpenError(`cannot open the database in ${dir}: ${(err as Error).message}`);
	}
	db.pragma('synchronous = NORMAL');
	db.pragma('foreign_keys = ON');
	db.pragma('busy_timeout = 5000');
	registerThreadFunctions(db);
	migrate(db);
	return db;
}

/**
 * What SQL needs of threads, as PostgreSQL's schema defines it in SQL: mailroom_digest (see threadDigest; NULL for a NULL
 * value) and mailroom_first_id, the first message id `<…>` of a header value (NULL when it names none).
 */
function registerThreadFunctions(db: Db): void {
	db.function('mailroom_digest', { deterministic: true }, (kind: unknown, scope: unknown, value: unknown) =>
		value === null ? null : threadDigest(kind as 'thread' | 'message', (scope as string | null) || null, value as string),
	);
	db.function('mailroom_first_id', { deterministic: true }, (value: unknown) =>
		typeof value === 'string' ? (messageIdsIn(value)[0] ?? null) : null,
	);
}

function migrate(db: Db): void {
	const current = db.pragma('user_version', { simple: true }) as number;
	if (current > MIGRATIONS.length) {
		db.close();
		throw new StoreOpenError(
			`the database in ${db.name} was written by a newer Mailroom (schema ${current}; this version knows ${MIGRATIONS.length}): upgrade Mailroom`,
		);
	}
	for (let version = current; version < MIGRATIONS.length; version++) {
		db.transaction(() => {
			db.exec(MIGRATIONS[version]);
			db.pragma(`user_version = ${version + 1}`);
		}).immediate();
	}
}
