import { tmpdir } from 'node:os';
import { Client } from 'pg';
import { openStore } from 'mailroom-server/dist/store/open-store';
import { MIGRATED_TEMPLATE_ENV, SHARED_POSTGRES_ENV, startOwnPostgres, urlFor, type OwnPostgres } from './helpers/postgres';

/** Where the global teardown finds the server (both run in Jest's own process). */
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
}
