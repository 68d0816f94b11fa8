import type { MailroomConfig } from '../config/settings';
import type { Logger } from '../log';
import type { IncomingMail, ParsedIncomingMail } from '../mail/incoming-mail';
import type { MessageRecord } from '../schemas/message';
import { localDomainRule } from '../mail/local-domains';
import { ParserPool } from '../parse/parser-pool';
import { openDatabase, type Db } from '../store/database';
import { GroupCommit } from '../store/group-commit';
import { WalSync } from '../store/wal-sync';
import { leaveCheckpointsToCheckpointer } from '../store/checkpointer';
import { MessageStore } from '../store/messages';
import { OutgoingStore } from '../store/outgoing';
import { InboxSettingsStore } from '../store/inbox-settings';
import { WebhookDeliveryStore } from '../store/webhook-deliveries';
import { EncryptedInboxStore } from '../store/encrypted-inboxes';
import { AddressStore } from '../store/addresses';
import { DomainStore } from '../store/domains';
import { WebhookRecorder } from './webhook-recorder';
import { ForwardRecorder } from './forward-recorder';

/** What a message's transaction recorded besides its records, for the main thread to act on once it is durable. */
export interface RecordedEffects {
	/** Records that got webhook or Slack deliveries to make. */
	webhookMessageIds: string[];
	/** Outgoing messages recorded to forward them. */
	forwardIds: string[];
}

/** A message once it is stored: one record per recipient inbox, and what its transaction recorded besides. */
export interface StoredMail {
	records: MessageRecord[];
	effects: RecordedEffects;
}

export type MessageWriterConfig = Pick<
	MailroomConfig,
	'dataDir' | 'durability' | 'parseWorkers' | 'parseTimeout' | 'webhookRetrySchedule' | 'domains' | 'localDomains' | 'relayUrl'
>;

/**
 * Stores incoming mail on the ingest thread, on a database connection of its own: parses it (small
 * single-part text inline, the rest on parser threads), then commits every recipient's record, together
 * with what the message sets off (webhook deliveries, forwards, a local copy's outbox status), in a
 * group commit. Resolves once all of it is durable.
 */
export class MessageWriter {
	private readonly db: Db;
	private readonly parser: ParserPool;
	private readonly walSync?: WalSync;
	private readonly commit: GroupCommit;
	private readonly messages: MessageStore;
	private readonly outgoing: OutgoingStore;
	private readonly webhooks: WebhookRecorder;
	private readonly forwards: ForwardRecorder;

	constructor(
		config: MessageWriterConfig,
		private readonly log: Logger,
	) {
		this.db = openDatabase(config.dataDir);
		leaveCheckpointsToCheckpointer(this.db);
		this.parser = new ParserPool(config.parseWorkers, config.parseTimeout);
		// durability "full": acknowledge only after the WAL is on disk; "normal": once committed.
		this.walSync = config.durability === 'full' ? new WalSync(`${this.db.name}-wal`) : undefined;
		this.commit = new GroupCommit(this.db, () => this.walSync?.sync() ?? Promise.resolve());
		this.messages = new MessageStore(this.db);
		this.outgoing = new OutgoingStore(this.db);
		const settings = new InboxSettingsStore(this.db);
		const domains = new DomainStore(this.db, new AddressStore(this.db));
		this.webhooks = new WebhookRecorder(
			settings,
			new WebhookDeliveryStore(this.db),
			new EncryptedInboxStore(this.db),
			config.webhookRetrySchedule[0],
		);
		this.forwards = new ForwardRecorder({
			settings,
			outgoing: this.outgoing,
			isLocalDomain: localDomainRule(config, (domain) => domains.isOwned(domain)),
			hasRelay: config.relayUrl !== undefined,
			log,
		});
	}

	async store(mail: IncomingMail): Promise<StoredMail> {
		const received = new Date();
		const { parsed, error } = await this.parser.parse(mail.raw);
		if (error) this.log.warn({ err: error.message, size: mail.raw.byteLength }, 'message could not be parsed; stored raw');
		const parsedMail: ParsedIncomingMail = { ...mail, parsed, received };
		return this.commit.run(() => {
			const records = this.messages.insert(parsedMail);
			if (mail.localCopy) this.outgoing.markDelivered(mail.localCopy.outgoingId, mail.localCopy.addresses);
			return {
				records,
				effects: { webhookMessageIds: this.webhooks.record(records), forwardIds: this.forwards.record(records, parsedMail) },
			};
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
