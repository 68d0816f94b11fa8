import type { StoreParts, TransactionParts } from '../store';
import type { Db } from './database';
import { PostgresAccountStore } from './accounts';
import { PostgresAccountStatsReader } from './account-stats';
import { PostgresAddressStore } from './addresses';
import { PostgresDomainStore } from './domains';
import { PostgresEncryptedInboxStore } from './encrypted-inboxes';
import { PostgresInboxSettingsStore } from './inbox-settings';
import { PostgresMessageStore } from './messages';
import { PostgresMessageStateStore } from './message-state';
import { PostgresMessageDeletion } from './message-deletion';
import { PostgresAttachmentStore } from './attachments';
import { PostgresAccountInbox } from './account-inbox';
import { PostgresMessageMatcher } from './message-matcher';
import { PostgresRetentionCandidates } from './retention-candidates';
import { PostgresOutgoingStore } from './outgoing';
import { PostgresWebhookDeliveryStore } from './webhook-deliveries';
import { PostgresWebhookSecretStore } from './webhook-secrets';
import { PostgresWebhookSubscriptionStore } from './webhook-subscriptions';
import { PostgresStoreFigures } from './figures';
import { announce } from './announcements';

/** Every part of the store on `db`: the pool, or one transaction (parts are plain objects, made per transaction). */
export function partsOn(db: Db, inboxKey: Buffer): StoreParts {
	return {
		accounts: new PostgresAccountStore(db),
		accountStats: new PostgresAccountStatsReader(db),
		addresses: new PostgresAddressStore(db),
		domains: new PostgresDomainStore(db),
		encryptedInboxes: new PostgresEncryptedInboxStore(db, inboxKey),
		inboxSettings: new PostgresInboxSettingsStore(db),
		messages: new PostgresMessageStore(db),
		messageState: new PostgresMessageStateStore(db),
		deletion: new PostgresMessageDeletion(db),
		attachments: new PostgresAttachmentStore(db),
		accountInbox: new PostgresAccountInbox(db),
		matcher: new PostgresMessageMatcher(db),
		retentionCandidates: new PostgresRetentionCandidates(db),
		outgoing: new PostgresOutgoingStore(db),
		webhookDeliveries: new PostgresWebhookDeliveryStore(db),
		webhookSecrets: new PostgresWebhookSecretStore(db),
		webhookSubscriptions: new PostgresWebhookSubscriptionStore(db),
		figures: new PostgresStoreFigures(db),
	};
}

/** The parts bound to one transaction, which also announces what it stored (as `node`'s) once it commits. */
export const transactionPartsOn = (tx: Db, inboxKey: Buffer, node: string): TransactionParts => ({
	...partsOn(tx, inboxKey),
	announce: (announcement) => announce(tx, { node, ...announcement }),
});
