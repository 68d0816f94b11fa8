import { SHARED_POSTGRES_ENV, startOwnPostgres, type OwnPostgres } from './helpers/postgres';

/** Where the global teardown finds the server (both run in Jest's own process). */
export const RUN_POSTGRES = Symbol.for('mailroom.test.postgres');

/** One throwaway PostgreSQL for the whole run: test files make their own databases on it (see helpers/postgres.ts). */
export default async function startRunPostgres(): Promise<void> {
	const server = await startOwnPostgres();
	(globalThis as Record<symbol, OwnPostgres>)[RUN_POSTGRES] = server;
	// The test workers are started after this, with this environment.
	process.env[SHARED_POSTGRES_ENV] = server.adminUrl;
}
