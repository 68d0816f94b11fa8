import type { MailroomConfig } from '../config/settings';
import type { Logger } from '../log';
import { ParserPool } from '../parse/parser-pool';
import { openDatabase, type Db } from '../store/database';
import { GroupCommit } from '../store/group-commit';
import { WalSync } from '../store/wal-sync';
import { leaveCheckpointsToCheckpointer } from '../store/checkpointer';
import { MessageStore, type Delivery, type MessageRecord } from '../store/messages';
import { WebhookRecorder } from '../webhooks/webhook-recorder';
import { Forwarding } from '../outbound/forwarding';
import { OutgoingStore } from '../outbound/outgoing-store';
import { localDomainRule } from '../outbound/local-domains';
import type { DeliveryEffects, IncomingMail } from './ingest';

export interface StoredDelivery {
	records: MessageRecord[];
	effects: DeliveryEffects;
}

export type WriterConfig = Pick<
	MailroomConfig,
	'dataDir' | 'durability' | 'parseWorkers' | 'parseTimeout' | 'webhookRetrySchedule' | 'domains' | 'localDomains' | 'relayUrl'
>;

/**
 * Stores incoming mail on the ingest thread, on a database connection of its own: parses it (small
 * single-part text inline, the rest on parser threads), then commits every recipient's record, together
 * with what the message sets off (webhook deliveries, forwards, a local copy's outbox status), in a
 * group commit. Resolves once all of it is durable.
 */
export class DeliveryWriter {
	private readonly db: Db;
	private readonly parser: ParserPool;
	private readonly walSync?: WalSync;
	private readonly commit: GroupCommit;
	private readonly messages: MessageStore;
	private readonly webhooks: WebhookRecorder;
	private readonly forwarding: Forwarding;
	private readonly outgoing: OutgoingStore;

	constructor(
		config: WriterConfig,
		private readonly log: Logger,
	) {
		this.db = openDatabase(config.dataDir);
		leaveCheckpointsToCheckpointer(this.db);
		this.parser = new ParserPool(config.parseWorkers, config.parseTimeout);
		// durability "full": acknowledge only after the WAL is on disk; "normal": once committed.
		this.walSync = config.durability === 'full' ? new WalSync(`${this.db.name}-wal`) : undefined;
		this.commit = new GroupCommit(this.db, () => this.walSync?.sync() ?? Promise.resolve());
		this.messages = new MessageStore(this.db);
		this.webhooks = new WebhookRecorder(this.db, config.webhookRetrySchedule[0]);
		this.outgoing = new OutgoingStore(this.db);
		this.forwarding = new Forwarding({
			db: this.db,
			store: this.outgoing,
			isLocalDomain: localDomainRule(config, this.db),
			hasRelay: config.relayUrl !== undefined,
			log,
		});
	}

	async store(mail: IncomingMail): Promise<StoredDelivery> {
		const received = new Date();
		const { parsed, error } = await this.parser.parse(mail.raw);
		if (error) this.log.warn({ err: error.message, size: mail.raw.byteLength }, 'message could not be parsed; stored raw');
		const delivery: Delivery = { ...mail, parsed, received };
		return this.commit.run(() => {
			const records = this.messages.insert(delivery);
			if (mail.localCopy) this.outgoing.markDelivered(mail.localCopy.outgoingId, mail.localCopy.addresses);
			return { records, effects: { webhookMessageIds: this.webhooks.record(records), forwardIds: this.forwarding.record(records, delivery) } };
		});
	}

	/** Call once nothing more is being stored. */
	async close(): Promise<void> {
		await this.commit.drained();
		await this.parser.close();
		this.walSync?.close();
		this.db.close();
	}
}
