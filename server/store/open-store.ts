import type { Logger } from '../log';
import type { Store } from './store';

export interface StoreSettings {
	/** The SQLite database's folder (the embedded default). */
	dataDir: string;
	/** A PostgreSQL URL: when set, the store is there instead, shared by every node that names it. */
	databaseUrl?: string;
	/** SQLite only: whether a commit waits for the WAL's fsync (see --durability). */
	durability: 'full' | 'normal';
}

/** What opens the store: the server's main thread, its ingest thread, or a command of the CLI. */
export type StoreRole = 'server' | 'ingest' | 'admin';

/**
 * The one place the engine is chosen: PostgreSQL when a database URL is set, else SQLite in the data folder. `node` names
 * this process among the nodes of a database; `logger` hears of connections lost and found again.
 */
export async function openStore(settings: StoreSettings, role: StoreRole, node: string, logger?: Logger): Promise<Store> {
	// Only the engine in use is loaded (the other's driver is dozens of modules: a CLI command's start would pay for them).
	if (settings.databaseUrl) {
		const { openPostgresStore } = await import('./postgres/open.js');
		return openPostgresStore(settings.databaseUrl, { node, role, logger });
	}
	const { openSqliteStore } = await import('./sqlite/open.js');
	return openSqliteStore(settings.dataDir, { durability: settings.durability, role });
}
