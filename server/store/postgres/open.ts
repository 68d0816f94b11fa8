import type { Logger } from '../../log';
import { StoreOpenError, StoreUnavailableError, type Store, type TransactionParts } from '../store';
import { GroupCommit } from '../group-commit';
import { PoolDb, describeTarget, openPool, reasonOf, targetOf, type Target } from './database';
import { migrate } from './migrations';
import { loadInboxKey } from '../sql/encrypted-inboxes';
import { partsOn, transactionPartsOn } from './parts';
import { AnnouncementListener } from './announcement-listener';
import { runExclusive } from './locks';

export interface PostgresStoreOptions {
	/** This process's node id: what it announces is not delivered back to it. */
	node: string;
	/**
	 * server: the main thread of `mailroom serve`, which hears what the other nodes announce; ingest: its ingest thread;
	 * admin: the CLI. Only a server's listeners (onAnnouncement) are ever called.
	 */
	role: 'server' | 'ingest' | 'admin';
	/** Where lost connections are reported (nothing is written to stdout). */
	logger?: Logger;
}

/**
 * Connections per process. server: API requests, the webhook and outbox queues and the retention sweep at once (which
 * keeps one for its lock), while a few nodes stay well within PostgreSQL's default max_connections of 100; ingest: one
 * transaction at a time (group commit) and a read beside it; admin: a command at a time, and one more for a task run
 * under an exclusive() lock.
 */
const POOL_SIZE = { server: 10, ingest: 2, admin: 2 } as const;

/**
 * Opens the store in a PostgreSQL database shared by every node that names it: checks and migrates its schema, and (role
 * server) listens for the mail the other nodes announce. StoreOpenError, saying what is wrong, when it cannot.
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions): Promise<Store> {
	let target: Target;
	try {
		target = targetOf(url);
	} catch {
		throw new StoreOpenError('the PostgreSQL URL is not valid: expected postgres://user:password@host:port/database');
	}
	const pool = openPool(url, POOL_SIZE[options.role], options.logger);
	const db = new PoolDb(pool, target);
	let inboxKey: Buffer;
	try {
		await migrate(db);
		inboxKey = await loadInboxKey(db);
	} catch (err) {
		await pool.end();
		throw openError(err, target);
	}
	const listener = options.role === 'server' ? new AnnouncementListener(url, options.node, options.logger) : undefined;
	await listener?.ready;
	const commit = new GroupCommit<TransactionParts>((work) => db.transaction((tx) => work(transactionPartsOn(tx, inboxKey, options.node))));
	return {
		...partsOn(db, inboxKey, options.node),
		engine: 'postgres',
		transaction: (write) => commit.run(write),
		// PostgreSQL acknowledges a commit once it is durable.
		durable: () => Promise.resolve(),
		onCommit: (listener) => commit.onCommit(listener),
		exclusive: (name, task) => runExclusive(db, name, task),
		onAnnouncement: (heard) => listener?.add(heard),
		onAnnouncementsMissed: (missed) => listener?.onMissed(missed),
		ping: async () => void (await db.run('SELECT 1')),
		close: async () => {
			await commit.drained();
			await listener?.close();
			await pool.end();
		},
	};
}

/** What keeps the store from opening, for a person to act on: where, and what to do (never the password). */
function openError(err: unknown, target: Target): StoreOpenError {
	if (err instanceof StoreOpenError) return err;
	const server = `PostgreSQL at ${target.host}:${target.port}`;
	if (err instanceof StoreUnavailableError) return new StoreOpenError(`cannot reach ${server}: ${reasonOf(err.cause)}`, { cause: err });
	switch ((err as { code?: unknown }).code) {
		case '28P01':
			return new StoreOpenError(`${server} refused the password of user "${target.user}"`, { cause: err });
		case '28000':
			return new StoreOpenError(`${server} refused user "${target.user}": ${reasonOf(err)}`, { cause: err });
		case '42501':
			return new StoreOpenError(
				`user "${target.user}" may not set up Mailroom's tables in ${describeTarget(target)} (make it the database's owner): ${reasonOf(err)}`,
				{ cause: err },
			);
		case '3D000':
			return new StoreOpenError(`${server} has no database "${target.database}": create it first (createdb ${target.database})`, {
				cause: err,
			});
		default:
			return new StoreOpenError(`cannot open the database ${describeTarget(target)}: ${reasonOf(err)}`, { cause: err });
	}
}
