import type { MailroomConfig } from '../config/settings';
import type { Db } from '../store/database';
import { GroupCommit } from '../store/group-commit';
import type { MessageRecord, MessageStore } from '../store/messages';
import type { Ingest } from '../ingest/ingest';
import type { Logger } from '../log';
import { WebhookDeliveryStore } from '../store/webhook-deliveries';
import { WebhookSecretStore } from '../store/webhook-secrets';
import { EncryptedInboxStore } from '../store/encrypted-inboxes';
import { WebhookTargets } from './webhook-target';
import { WebhookSender } from './webhook-sender';
import { WebhookWorker } from './webhook-worker';

export interface WebhooksOptions {
	db: Db;
	config: Pick<MailroomConfig, 'webhookTimeout' | 'webhookRetrySchedule' | 'webhookAllowPrivate' | 'webhookHostConcurrency' | 'webhookActivityDays'>;
	ingest: Ingest;
	messages: MessageStore;
	encryptedInboxes: EncryptedInboxStore;
	log: Logger;
}

const DAY_MS = 24 * 3600 * 1000;
const PRUNE_EVERY_MS = 3600 * 1000;

/**
 * Webhook forwarding: records a delivery in the transaction of every message whose inbox has
 * a webhook or a Slack webhook, sends it once committed, and keeps the Recent Activity log within its retention.
 */
export class Webhooks {
	readonly deliveries: WebhookDeliveryStore;
	readonly secrets: WebhookSecretStore;
	private readonly worker: WebhookWorker;
	private readonly targets: WebhookTargets;
	private pruneTimer?: NodeJS.Timeout;
	/** Ids of messages whose transaction recorded deliveries, until they are announced as delivered. */
	private readonly recorded = new Set<string>();

	constructor(private readonly options: WebhooksOptions) {
		const { db, config } = options;
		this.deliveries = new WebhookDeliveryStore(db);
		this.secrets = new WebhookSecretStore(db);
		this.targets = new WebhookTargets(db);
		this.worker = new WebhookWorker({
			deliveries: this.deliveries,
			messages: options.messages,
			secrets: this.secrets,
			encryptedInboxes: options.encryptedInboxes,
			attemptLog: new GroupCommit(db),
			sender: new WebhookSender({ timeoutMs: config.webhookTimeout, allowPrivate: config.webhookAllowPrivate }),
			schedule: config.webhookRetrySchedule,
			hostConcurrency: config.webhookHostConcurrency,
			log: options.log,
		});
		options.ingest.addTransactionHook((records) => this.recordDeliveries(records));
		// Only messages that got deliveries in their transaction are looked up again: most mail has no webhook.
		options.ingest.on('delivered', (records) => {
			const withDeliveries = records.filter((record) => this.recorded.delete(record._id));
			if (withDeliveries.length) this.worker.dispatch(withDeliveries);
		});
	}

	/** Picks up what was pending at the last stop, and starts the retention sweep. */
	start(): void {
		this.prune();
		this.pruneTimer = setInterval(() => this.prune(), PRUNE_EVERY_MS).unref();
		this.worker.start();
	}

	redeliver(deliveryId: string): boolean {
		return this.worker.redeliver(deliveryId);
	}

	async close(): Promise<void> {
		clearInterval(this.pruneTimer);
		await this.worker.close();
	}

	/** Runs inside the message's transaction: a crash cannot lose a delivery to make. */
	private recordDeliveries(records: MessageRecord[]): void {
		const due = Date.now() + this.options.config.webhookRetrySchedule[0];
		for (const record of records) {
			for (const target of this.targets.find(record.inbox, record.domain)) {
				// The payload reveals the encrypted address, so it must route from now on.
				if (target.kind === 'webhook') this.options.encryptedInboxes.remember(record.inbox);
				this.deliveries.create({ messageId: record._id, accountId: target.accountId, address: record.inbox, url: target.url, kind: target.kind }, due);
				this.recorded.add(record._id);
			}
		}
	}

	private prune(): void {
		try {
			this.deliveries.prune(Date.now() - this.options.config.webhookActivityDays * DAY_MS);
		} catch (err) {
			this.options.log.warn({ err }, 'pruning the webhook activity log failed');
		}
	}
}
