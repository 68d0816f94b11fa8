import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { openStore } from 'mailroom-server/dist/store/open-store';
import {
	MIGRATED_TEMPLATE_ENV,
	SHARED_POSTGRES_ENV,
	SQLITE_TEMPLATE_ENV,
	startOwnPostgres,
	urlFor,
	type OwnPostgres,
} from './helpers/postgres';

/** Where the global teardown finds the server and the SQLite template's folder (both run in Jest's own process). */
export const RUN_POSTGRES = Symbol.for('mailroom.test.postgres');

/** One throwaway PostgreSQL for the whole run: test files make their own databases on it (see helpers/postgres.ts). */
export default async function startRunPostgres(): Promise<void> {
	const server = await startOwnPostgres();
	(globalThis as Record<symbol, OwnPostgres>)[RUN_POSTGRES] = server;
	// The test workers are started after this, with this environment.
	process.env[SHARED_POSTGRES_ENV] = server.adminUrl;
	const template = 'mailroom_migrated';
	const databaseUrl = urlFor(server.adminUrl, { database: template });
	const admin = new Client({ connectionString: server.adminUrl });
	await admin.connect();
	await admin.query(`CREATE DATABASE ${template}`);
	await admin.end();
	await (await openStore({ dataDir: tmpdir(), durability: 'normal', databaseUrl }, 'admin', 'test-setup')).close();
	// Each copy makes its own encryptedInbox key when it is first opened, as a new database does.
	const migrated = new Client({ connectionString: databaseUrl });
	await migrated.connect();
	await migrated.query('DELETE FROM server_secrets');
	await migrated.end();
	process.env[MIGRATED_TEMPLATE_ENV] = template;
	process.env[SQLITE_TEMPLATE_ENV] = await migratedSqlite();
}

export const RUN_SQLITE_TEMPLATE = Symbol.for('mailroom.test.sqlite-template');

/** An SQLite database migrated to Mailroom's schema, without rows, for the servers' new data folders to copy. */
async function migratedSqlite(): Promise<string> {
	const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-test-template-'));
	(globalThis as Record<symbol, string>)[RUN_SQLITE_TEMPLATE] = dataDir;
	await (await openStore({ dataDir, durability: 'normal' }, 'admin', 'test-setup')).close();
	const file = join(dataDir, 'mailroom.sqlite');
	const db = new Database(file);
	// Each copy makes its own encryptedInbox key when it is first opened, as a new database does.
	db.prepare('DELETE FROM server_secrets').run();
	db.pragma('wal_checkpoint(TRUNCATE)');
	db.close();
	return file;
}
