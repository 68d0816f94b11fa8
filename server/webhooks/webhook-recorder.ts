import type { Db } from '../store/database';
import type { MessageRecord } from '../store/messages';
import { WebhookDeliveryStore } from '../store/webhook-deliveries';
import { EncryptedInboxStore } from '../store/encrypted-inboxes';
import { WebhookTargets } from './webhook-target';

/**
 * Records the webhook and Slack deliveries of new messages. It runs on the ingest thread, inside the
 * messages' own transaction, so a crash cannot lose a delivery to make.
 */
export class WebhookRecorder {
	private readonly targets: WebhookTargets;
	private readonly deliveries: WebhookDeliveryStore;
	private readonly encryptedInboxes: EncryptedInboxStore;

	constructor(
		db: Db,
		/** Wait (ms) before the first attempt: the first step of the retry schedule. */
		private readonly firstAttemptDelay: number,
	) {
		this.targets = new WebhookTargets(db);
		this.deliveries = new WebhookDeliveryStore(db);
		this.encryptedInboxes = new EncryptedInboxStore(db);
	}

	/** Returns the ids of the messages that got deliveries (most mail has no webhook). */
	record(records: MessageRecord[]): string[] {
		const due = Date.now() + this.firstAttemptDelay;
		const withDeliveries: string[] = [];
		for (const record of records) {
			const targets = this.targets.find(record.inbox, record.domain);
			for (const target of targets) {
				// The payload reveals the encrypted address, so it must route from now on.
				if (target.kind === 'webhook') this.encryptedInboxes.remember(record.inbox);
				this.deliveries.create({ messageId: record._id, accountId: target.accountId, address: record.inbox, url: target.url, kind: target.kind }, due);
			}
			if (targets.length) withDeliveries.push(record._id);
		}
		return withDeliveries;
	}
}
