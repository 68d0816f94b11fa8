import type { Store, StoreParts, TransactionParts } from '../store';
import { GroupCommit } from '../group-commit';
import { openDatabase, type Db } from './database';
import { SqliteDb } from './sqlite-db';
import { WalSync } from './wal-sync';
import { Checkpointer, leaveCheckpointsToCheckpointer } from './checkpointer';
import type { SqlDb } from '../sql/sql-db';
import { SqlAccountStore } from '../sql/accounts';
import { SqlAccountStatsReader } from '../sql/account-stats';
import { SqlAddressStore } from '../sql/addresses';
import { SqlDomainStore } from '../sql/domains';
import { SqlEncryptedInboxStore, loadInboxKey } from '../sql/encrypted-inboxes';
import { SqlInboxSettingsStore } from '../sql/inbox-settings';
import { SqlMessageStateStore } from '../sql/message-state';
import { SqlMessageDeletion } from '../sql/message-deletion';
import { SqlRetentionCandidates } from '../sql/retention-candidates';
import { SqlOutgoingStore } from '../sql/outgoing';
import { SqlThreadStore } from '../sql/threads';
import { SqlWebhookDeliveryStore } from '../sql/webhook-deliveries';
import { SqlWebhookSecretStore } from '../sql/webhook-secrets';
import { SqlWebhookSubscriptionStore } from '../sql/webhook-subscriptions';
import { SqlReplyHookStore } from '../sql/reply-hooks';
import { SqlChaosStore } from '../sql/chaos';
import { SqlDeliveryEventStore } from '../sql/delivery-events';
import { SqlSuppressionStore } from '../sql/suppressions';
import { NOTHING_MORE } from '../sql/ownership';
import { SqliteMessageStore } from './messages';
import { SqliteAttachmentStore } from './attachments';
import { SqliteAccountInbox } from './account-inbox';
import { SqliteMessageMatcher } from './message-matcher';
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

/** Every part of the store: the shared statements on `sql`, SQLite's own on the connection. */
function partsOn(db: Db, sql: SqlDb, inboxKey: Buffer): StoreParts {
	return {
		accounts: new SqlAccountStore(sql),
		accountStats: new SqlAccountStatsReader(sql),
		addresses: new SqlAddressStore(sql, NOTHING_MORE),
		domains: new SqlDomainStore(sql, NOTHING_MORE),
		encryptedInboxes: new SqlEncryptedInboxStore(sql, inboxKey),
		inboxSettings: new SqlInboxSettingsStore(sql),
		messages: new SqliteMessageStore(db),
		messageState: new SqlMessageStateStore(sql),
		deletion: new SqlMessageDeletion(sql),
		attachments: new SqliteAttachmentStore(db),
		accountInbox: new SqliteAccountInbox(db),
		matcher: new SqliteMessageMatcher(db),
		retentionCandidates: new SqlRetentionCandidates(sql),
		outgoing: new SqlOutgoingStore(sql),
		threads: new SqlThreadStore(sql),
		webhookDeliveries: new SqlWebhookDeliveryStore(sql),
		webhookSecrets: new SqlWebhookSecretStore(sql),
		webhookSubscriptions: new SqlWebhookSubscriptionStore(sql),
		replyHooks: new SqlReplyHookStore(sql),
		chaos: new SqlChaosStore(sql),
		deliveryEvents: new SqlDeliveryEventStore(sql),
		suppressions: new SqlSuppressionStore(sql),
		figures: new SqliteStoreFigures(db, sql),
	};
}

/**
 * The embedded engine: one SQLite database in the data folder, for one server (and the CLI beside it). Its parts answer
 * at once. A transaction has the connection to itself from BEGIN to COMMIT (see SqliteDb), which holds because its work
 * never waits for anything but the parts' own already-settled promises.
 */
export async function openSqliteStore(dataDir: string, options: SqliteStoreOptions): Promise<Store> {
	const db = openDatabase(dataDir);
	const sql = new SqliteDb(db);
	const walSync = options.durability === 'full' && options.role !== 'admin' ? new WalSync(`${db.name}-wal`) : undefined;
	const checkpointer = options.role === 'server' ? new Checkpointer(db) : undefined;
	if (options.role === 'ingest') leaveCheckpointsToCheckpointer(db);
	const inboxKey = await loadInboxKey(sql);
	const parts = partsOn(db, sql, inboxKey);
	if (options.role === 'server') releaseAllLeases(db);
	const durable = () => walSync?.sync() ?? Promise.resolve();
	// The parts a transaction's work gets: the same statements, run at once in it.
	const inTransaction: TransactionParts = { ...partsOn(db, sql.inTransaction, inboxKey), announce: () => Promise.resolve() };
	const commit = new GroupCommit<TransactionParts>((work) => sql.transaction(() => work(inTransaction)), durable);
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

/** One server per data folder: at its start, whatever an earlier run was attempting is due again at once. */
function releaseAllLeases(db: Db): void {
	db.exec(`UPDATE webhook_deliveries SET lease_node = NULL, lease_until = NULL WHERE lease_node IS NOT NULL;
		UPDATE outbox SET lease_node = NULL, lease_until = NULL WHERE lease_node IS NOT NULL;`);
}
