import type { StoreParts, TransactionParts } from '../store';
import type { Db } from './database';
import { SqlAccountStore } from '../sql/accounts';
import { SqlAccountStatsReader } from '../sql/account-stats';
import { SqlAddressStore } from '../sql/addresses';
import { SqlDomainStore } from '../sql/domains';
import { SqlEncryptedInboxStore } from '../sql/encrypted-inboxes';
import { SqlInboxSettingsStore } from '../sql/inbox-settings';
import { SqlMessageStateStore } from '../sql/message-state';
import { SqlMessageDeletion } from '../sql/message-deletion';
import { SqlRetentionCandidates } from '../sql/retention-candidates';
import { SqlOutgoingStore } from '../sql/outgoing';
import { SqlThreadStore } from '../sql/threads';
import { SqlWebhookSecretStore } from '../sql/webhook-secrets';
import { SqlWebhookSubscriptionStore } from '../sql/webhook-subscriptions';
import { SqlReplyHookStore } from '../sql/reply-hooks';
import { SqlChaosStore } from '../sql/chaos';
import { SqlDeliveryEventStore } from '../sql/delivery-events';
import { SqlSuppressionStore } from '../sql/suppressions';
import { PostgresMessageStore } from './messages';
import { PostgresAttachmentStore } from './attachments';
import { PostgresAccountInbox } from './account-inbox';
import { PostgresMessageMatcher } from './message-matcher';
import { PostgresWebhookDeliveryStore } from './webhook-deliveries';
import { PostgresStoreFigures } from './figures';
import { POSTGRES_OWNERSHIP } from './ownership';
import { announce } from './announcements';

/**
 * Every part of the store on `db`: the pool, or one transaction (parts are plain objects, made per transaction). What
 * they announce to the other nodes is `node`'s.
 */
export function partsOn(db: Db, inboxKey: Buffer, node: string): StoreParts {
	const announceEvents = (tx: Db, events: string[]) => announce(tx, { node, messages: [], webhooks: false, forwards: false, events });
	return {
		accounts: new SqlAccountStore(db),
		accountStats: new SqlAccountStatsReader(db),
		addresses: new SqlAddressStore(db, POSTGRES_OWNERSHIP),
		domains: new SqlDomainStore(db, POSTGRES_OWNERSHIP),
		encryptedInboxes: new SqlEncryptedInboxStore(db, inboxKey),
		inboxSettings: new SqlInboxSettingsStore(db),
		messages: new PostgresMessageStore(db),
		messageState: new SqlMessageStateStore(db),
		deletion: new SqlMessageDeletion(db),
		attachments: new PostgresAttachmentStore(db),
		accountInbox: new PostgresAccountInbox(db),
		matcher: new PostgresMessageMatcher(db),
		retentionCandidates: new SqlRetentionCandidates(db),
		outgoing: new SqlOutgoingStore(db, announceEvents),
		threads: new SqlThreadStore(db),
		webhookDeliveries: new PostgresWebhookDeliveryStore(db),
		webhookSecrets: new SqlWebhookSecretStore(db),
		webhookSubscriptions: new SqlWebhookSubscriptionStore(db),
		replyHooks: new SqlReplyHookStore(db),
		chaos: new SqlChaosStore(db),
		deliveryEvents: new SqlDeliveryEventStore(db),
		suppressions: new SqlSuppressionStore(db),
		figures: new PostgresStoreFigures(db),
	};
}

/** The parts bound to one transaction, which also announces what it stored (as `node`'s) once it commits. */
export const transactionPartsOn = (tx: Db, inboxKey: Buffer, node: string): TransactionParts => ({
	...partsOn(tx, inboxKey, node),
	announce: (announcement) => announce(tx, { node, ...announcement }),
});
