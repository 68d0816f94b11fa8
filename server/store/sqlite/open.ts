import type { Store, StoreParts, TransactionParts } from '../store';
import { GroupCommit, type Transact } from '../group-commit';
import { openDatabase, type Db } from './database';
import { WalSync } from './wal-sync';
import { Checkpointer, leaveCheckpointsToCheckpointer } from './checkpointer';
import { SqliteAccountStore } from './accounts';
import { SqliteAccountStatsReader } from './account-stats';
import { SqliteAddressStore } from './addresses';
import { SqliteDomainStore } from './domains';
import { SqliteEncryptedInboxStore } from './encrypted-inboxes';
import { SqliteInboxSettingsStore } from './inbox-settings';
import { SqliteMessageStore } from './messages';
import { SqliteMessageStateStore } from './message-state';
import { SqliteMessageDeletion } from './message-deletion';
import { SqliteAttachmentStore } from './attachments';
import { SqliteAccountInbox } from './account-inbox';
import { SqliteMessageMatcher } from './message-matcher';
import { SqliteRetentionCandidates } from './retention-candidates';
import { SqliteOutgoingStore } from './outgoing';
import { SqliteWebhookDeliveryStore } from './webhook-deliveries';
import { SqliteWebhookSecretStore } from './webhook-secrets';
import { SqliteWebhookSubscriptionStore } from './webhook-subscriptions';
import { SqliteStoreFigures } from './figures';

export interface SqliteStoreOptions {
	/** `full`: durable() waits for an fsync of the WAL; `normal`: a commit is enough (it survives a crash of the process). */
	durability: 'full' | 'normal';
	/**
	 * server: the main thread of `mailroom serve` (it checkpoints the WAL, on a thread of its own); ingest: the ingest
	 * thread (it leaves checkpoints to the server's); admin: a command of the CLI.
	 */
	role: 'server' | 'ingest' | 'admin';
}

function partsOn(db: Db): StoreParts {
	const addresses = new SqliteAddressStore(db);
	return {
		accounts: new SqliteAccountStore(db),
		accountStats: new SqliteAccountStatsReader(db),
		addresses,
		domains: new SqliteDomainStore(db, addresses),
		encryptedInboxes: new SqliteEncryptedInboxStore(db),
		inboxSettings: new SqliteInboxSettingsStore(db),
		messages: new SqliteMessageStore(db),
		messageState: new SqliteMessageStateStore(db),
		deletion: new SqliteMessageDeletion(db),
		attachments: new SqliteAttachmentStore(db),
		accountInbox: new SqliteAccountInbox(db),
		matcher: new SqliteMessageMatcher(db),
		retentionCandidates: new SqliteRetentionCandidates(db),
		outgoing: new SqliteOutgoingStore(db),
		webhookDeliveries: new SqliteWebhookDeliveryStore(db),
		webhookSecrets: new SqliteWebhookSecretStore(db),
		webhookSubscriptions: new SqliteWebhookSubscriptionStore(db),
		figures: new SqliteStoreFigures(db),
	};
}

/**
 * The embedded engine: one SQLite database in the data folder, for one server (and the CLI beside it). Its parts answer
 * at once. A write transaction keeps the connection to itself from BEGIN to COMMIT, which holds only because its work never
 * waits for anything but the parts' own already-settled promises, and because only the ingest thread writes this way.
 */
export function openSqliteStore(dataDir: string, options: SqliteStoreOptions): Store {
	const db = openDatabase(dataDir);
	const walSync = options.durability === 'full' && options.role !== 'admin' ? new WalSync(`${db.name}-wal`) : undefined;
	const checkpointer = options.role === 'server' ? new Checkpointer(db) : undefined;
	if (options.role === 'ingest') leaveCheckpointsToCheckpointer(db);
	const parts = partsOn(db);
	if (options.role === 'server') releaseAllLeases(db);
	const durable = () => walSync?.sync() ?? Promise.resolve();
	const inTransaction: TransactionParts = { ...parts, announce: () => Promise.resolve() };
	const commit = new GroupCommit(sqliteTransact(db, inTransaction), durable);
	return {
		...parts,
		engine: 'sqlite',
		transaction: (write) => commit.run(write),
		durable,
		onCommit: (listener) => commit.onCommit(listener),
		exclusive: (_name, task) => task(),
		onAnnouncement: () => undefined,
		onAnnouncementsMissed: () => undefined,
		ping: async () => void db.prepare('SELECT 1').get(),
		close: async () => {
			await commit.drained();
			await checkpointer?.close();
			walSync?.close();
			db.close();
		},
	};
}

/**
 * Runs work in one transaction on the connection, with `parts` bound to it. It begins IMMEDIATE: it takes the write lock
 * at once, so a read at its start cannot be overtaken by another connection's write.
 */
export function sqliteTransact<Parts>(db: Db, parts: Parts): Transact<Parts> {
	return async (work) => {
		db.exec('BEGIN IMMEDIATE');
		try {
			const result = await work(parts);
			db.exec('COMMIT');
			return result;
		} catch (err) {
			if (db.inTransaction) db.exec('ROLLBACK');
			throw err;
		}
	};
}

/** One server per data folder: at its start, whatever an earlier run was attempting is due again at once. */
function releaseAllLeases(db: Db): void {
	db.exec(`UPDATE webhook_deliveries SET lease_node = NULL, lease_until = NULL WHERE lease_node IS NOT NULL;
		UPDATE outbox SET lease_node = NULL, lease_until = NULL WHERE lease_node IS NOT NULL;`);
}
