import type { MessageRecord } from '../schemas/message';
import type { WebhookDeliveryStore } from '../store/webhook-deliveries';
import type { EncryptedInboxStore } from '../store/encrypted-inboxes';
import type { InboxSettingsStore } from '../store/inbox-settings';

/**
 * Records the webhook and Slack deliveries of new messages (each inbox's webhook and Slack webhook, see InboxSettings).
 * It runs on the ingest thread, inside the messages' own transaction, so a crash cannot lose a delivery to make.
 */
export class WebhookRecorder {
	constructor(
		private readonly settings: InboxSettingsStore,
		private readonly deliveries: WebhookDeliveryStore,
		private readonly encryptedInboxes: EncryptedInboxStore,
		/** Wait (ms) before the first attempt: the first step of the retry schedule. */
		private readonly firstAttemptDelay: number,
	) {}

	/** Returns the ids of the messages that got deliveries (most mail has no webhook). */
	record(records: MessageRecord[]): string[] {
		const due = Date.now() + this.firstAttemptDelay;
		const withDeliveries: string[] = [];
		for (const record of records) {
			const settings = this.settings.of(record.inbox, record.domain);
			const webhook = settings.get('webhook');
			const slack = settings.get('webhookSlack');
			const delivery = { messageId: record._id, address: record.inbox };
			if (webhook) {
				// The payload reveals the encrypted address, so it must route from now on.
				this.encryptedInboxes.remember(record.inbox);
				this.deliveries.create({ ...delivery, accountId: webhook.from.owner, url: webhook.value, kind: 'webhook' }, due);
			}
			if (slack) {
				const kind = slack.from.webhookSlackToFrom ? 'slack-to-from' : 'slack';
				this.deliveries.create({ ...delivery, accountId: slack.from.owner, url: slack.value, kind }, due);
			}
			if (webhook || slack) withDeliveries.push(record._id);
		}
		return withDeliveries;
	}
}
