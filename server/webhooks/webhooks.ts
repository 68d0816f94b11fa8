import type { MailroomConfig } from '../config/settings';
import type {
	AccountStore,
	DeliveryEventStore,
	EncryptedInboxStore,
	MessageStore,
	ReplyHookStore,
	WebhookDeliveryStore,
	WebhookSecretStore,
} from '../store/store';
import type { Ingest } from '../ingest/ingest';
import type { Logger } from '../log';
import type { WebhookMetrics } from '../metrics/webhook-metrics';
import { WebhookSender } from './webhook-sender';
import { WebhookDispatcher } from './webhook-dispatcher';
import { TargetPolicy } from './target-policy';

export interface WebhooksOptions {
	deliveries: WebhookDeliveryStore;
	secrets: WebhookSecretStore;
	/** Expired reply hooks go with the activity log's pruning. */
	replyHooks: ReplyHookStore;
	messages: MessageStore;
	/** The delivery events an event subscription's deliveries post. */
	events: DeliveryEventStore;
	encryptedInboxes: EncryptedInboxStore;
	/** Whose webhooks may reach private addresses depends on whether the account is an admin. */
	accounts: Pick<AccountStore, 'find'>;
	config: Pick<
		MailroomConfig,
		| 'webhookTimeout'
		| 'webhookRetrySchedule'
		| 'webhookAllowPrivate'
		| 'webhookAllowHosts'
		| 'webhookHostConcurrency'
		| 'webhookActivityDays'
		| 'workLease'
	>;
	ingest: Ingest;
	/** This node: the holder of the leases of the deliveries it takes. */
	node: string;
	/** Runs a task on one node of the database at a time (see Store.exclusive). */
	exclusive: <T>(name: string, task: () => Promise<T>) => Promise<T | undefined>;
	/** Where clients reach this server's API, for the attachment links in payloads (known once the server listens). */
	publicUrl: () => string;
	log: Logger;
	metrics: WebhookMetrics;
}

const DAY_MS = 24 * 3600 * 1000;
const PRUNE_EVERY_MS = 3600 * 1000;

/**
 * Webhook forwarding: sends the deliveries recorded with new messages (see WebhookRecorder) once they are
 * durable, retries them, and keeps the Recent Activity log within its retention (and deletes expired reply hooks).
 */
export class Webhooks {
	readonly deliveries: WebhookDeliveryStore;
	readonly secrets: WebhookSecretStore;
	/** The SSRF policy: deliveries follow it, and the API checks webhook URLs against it when they are set. */
	readonly targets: TargetPolicy;
	private readonly dispatcher: WebhookDispatcher;
	private pruneTimer?: NodeJS.Timeout;

	constructor(private readonly options: WebhooksOptions) {
		const { config } = options;
		this.deliveries = options.deliveries;
		this.secrets = options.secrets;
		this.targets = new TargetPolicy({ allowPrivate: config.webhookAllowPrivate, allowHosts: config.webhookAllowHosts });
		this.dispatcher = new WebhookDispatcher({
			deliveries: options.deliveries,
			messages: options.messages,
			events: options.events,
			secrets: options.secrets,
			encryptedInboxes: options.encryptedInboxes,
			node: options.node,
			lease: config.workLease,
			sender: new WebhookSender({ timeoutMs: config.webhookTimeout }),
			policy: this.targets,
			accounts: options.accounts,
			publicUrl: options.publicUrl,
			schedule: config.webhookRetrySchedule,
			hostConcurrency: config.webhookHostConcurrency,
			log: options.log,
			metrics: options.metrics,
		});
		// Only transactions that recorded deliveries send the dispatcher looking: most mail has no webhook.
		options.ingest.on('stored', (_records, { webhookMessageIds, events }) => {
			if (webhookMessageIds.length || events.length) this.dispatcher.dispatch();
		});
	}

	/** Picks up what was pending at the last stop (or is left by a stopped node), and starts the activity log's pruning. */
	start(): void {
		void this.prune();
		this.pruneTimer = setInterval(() => void this.prune(), PRUNE_EVERY_MS).unref();
		this.dispatcher.start();
	}

	/** Claims what is due now (another node recorded deliveries, or gave back the ones it held). */
	lookForWork(): void {
		this.dispatcher.dispatch();
	}

	redeliver(deliveryId: string): Promise<boolean> {
		return this.dispatcher.redeliver(deliveryId);
	}

	async close(): Promise<void> {
		clearInterval(this.pruneTimer);
		await this.dispatcher.close();
	}

	private async prune(): Promise<void> {
		try {
			const before = Date.now() - this.options.config.webhookActivityDays * DAY_MS;
			await this.options.exclusive('webhook-activity-prune', () => this.deliveries.prune(before));
			// Delivery events go with the activity that posted them.
			await this.options.exclusive('delivery-events-prune', () => this.options.events.prune(new Date(before).toISOString()));
			await this.options.exclusive('reply-hooks-prune', () => this.options.replyHooks.deleteExpired(Date.now()));
		} catch (err) {
			this.options.log.warn({ err }, 'pruning the webhook activity log failed');
		}
	}
}
