import type { MailroomConfig } from '../config/settings';
import type { Db } from '../store/database';
import { GroupCommit } from '../store/group-commit';
import type { MessageStore } from '../store/messages';
import type { Ingest } from '../ingest/ingest';
import type { Logger } from '../log';
import { WebhookDeliveryStore } from '../store/webhook-deliveries';
import { WebhookSecretStore } from '../store/webhook-secrets';
import { EncryptedInboxStore } from '../store/encrypted-inboxes';
import { WebhookSender } from './webhook-sender';
import { WebhookDispatcher } from './webhook-dispatcher';

export interface WebhooksOptions {
	db: Db;
	config: Pick<
		MailroomConfig,
		'webhookTimeout' | 'webhookRetrySchedule' | 'webhookAllowPrivate' | 'webhookHostConcurrency' | 'webhookActivityDays'
	>;
	ingest: Ingest;
	messages: MessageStore;
	encryptedInboxes: EncryptedInboxStore;
	/** Where clients reach this server's API, for the attachment links in payloads (known once the server listens). */
	publicUrl: () => string;
	log: Logger;
}

const DAY_MS = 24 * 3600 * 1000;
const PRUNE_EVERY_MS = 3600 * 1000;

/**
 * Webhook forwarding: sends the deliveries recorded with new messages (see WebhookRecorder) once they are
 * durable, retries them, and keeps the Recent Activity log within its retention.
 */
export class Webhooks {
	readonly deliveries: WebhookDeliveryStore;
	readonly secrets: WebhookSecretStore;
	private readonly dispatcher: WebhookDispatcher;
	private pruneTimer?: NodeJS.Timeout;

	constructor(private readonly options: WebhooksOptions) {
		const { db, config } = options;
		this.deliveries = new WebhookDeliveryStore(db);
		this.secrets = new WebhookSecretStore(db);
		this.dispatcher = new WebhookDispatcher({
			deliveries: this.deliveries,
			messages: options.messages,
			secrets: this.secrets,
			encryptedInboxes: options.encryptedInboxes,
			attemptLog: new GroupCommit(db),
			sender: new WebhookSender({ timeoutMs: config.webhookTimeout, allowPrivate: config.webhookAllowPrivate }),
			publicUrl: options.publicUrl,
			schedule: config.webhookRetrySchedule,
			hostConcurrency: config.webhookHostConcurrency,
			log: options.log,
		});
		// Only messages that got deliveries in their transaction are looked up again: most mail has no webhook.
		options.ingest.on('stored', (records, { webhookMessageIds }) => {
			if (webhookMessageIds.length) this.dispatcher.dispatch(records.filter((record) => webhookMessageIds.includes(record._id)));
		});
	}

	/** Picks up what was pending at the last stop, and starts the retention sweep. */
	start(): void {
		this.prune();
		this.pruneTimer = setInterval(() => this.prune(), PRUNE_EVERY_MS).unref();
		this.dispatcher.start();
	}

	redeliver(deliveryId: string): boolean {
		return this.dispatcher.redeliver(deliveryId);
	}

	async close(): Promise<void> {
		clearInterval(this.pruneTimer);
		await this.dispatcher.close();
	}

	private prune(): void {
		try {
			this.deliveries.prune(Date.now() - this.options.config.webhookActivityDays * DAY_MS);
		} catch (err) {
			this.options.log.warn({ err }, 'pruning the webhook activity log failed');
		}
	}
}
