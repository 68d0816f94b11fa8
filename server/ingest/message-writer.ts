import type { MailroomConfig } from '../config/settings';
import type { Logger } from '../log';
import type { IncomingMail, ParsedIncomingMail } from '../mail/incoming-mail';
import type { MessageRecord } from '../schemas/message';
import type { CommitFigures, Store } from '../store/store';
import type { InboxSettings } from '../store/inbox-settings';
import { localDomainRule } from '../mail/local-domains';
import { isAutomaticReply } from '../mail/automatic-reply';
import { ParserPool } from '../parse/parser-pool';
import { withSenderAuth } from '../parse/spam';
import { openStore } from '../store/open-store';
import { WebhookRecorder } from './webhook-recorder';
import { ForwardRecorder } from './forward-recorder';
import { readDeliveryReport } from '../mail/delivery-report';
import type { RecordedEvent, StoreParts } from '../store/store';

/** What a message's transaction recorded besides its records, for the main thread to act on once it is durable. */
export interface RecordedEffects {
	/** Records that got webhook or Slack deliveries to make. */
	webhookMessageIds: string[];
	/** Outgoing messages recorded to forward them. */
	forwardIds: string[];
	/** Delivery events of sent mail (its local copies delivered, a report on a recipient): their deliveries are recorded too. */
	events: RecordedEvent[];
}

/** A message once it is stored: one record per recipient inbox, and what its transaction recorded besides. */
export interface StoredMail {
	records: MessageRecord[];
	effects: RecordedEffects;
	/** Its parse failed (a timeout, a crash, a limit): it was stored unparsed, its raw source as its text. */
	unparsed: boolean;
}

export type MessageWriterConfig = Pick<
	MailroomConfig,
	| 'dataDir'
	| 'databaseUrl'
	| 'durability'
	| 'parseWorkers'
	| 'parseTimeout'
	| 'webhookRetrySchedule'
	| 'domains'
	| 'localDomains'
	| 'relayUrl'
	| 'workLease'
	| 'hostname'
	| 'returnPathDomain'
	| 'testDomain'
> & {
	/** This node's id: the forwards it records are leased to it, and other nodes hear of its mail under it. */
	node: string;
};

/**
 * Stores incoming mail on the ingest thread, on a store connection of its own: parses it (small single-part text
 * inline, the rest on parser threads), then commits every recipient's record, together with what the message sets off
 * (webhook deliveries, forwards, a local copy's outbox status) and the announcement other nodes hear, in a group commit.
 * Resolves once all of it is durable.
 */
export class MessageWriter {
	private readonly webhooks: WebhookRecorder;
	private readonly forwards: ForwardRecorder;

	private constructor(
		config: MessageWriterConfig,
		private readonly database: Store,
		private readonly parser: ParserPool,
		private readonly log: Logger,
	) {
		this.webhooks = new WebhookRecorder(config.webhookRetrySchedule[0]);
		this.forwards = new ForwardRecorder({
			node: config.node,
			lease: config.workLease,
			isLocalDomain: (domain, isOwned) => localDomainRule(config, isOwned)(domain),
			hasRelay: config.relayUrl !== undefined,
			returnPathDomain: config.returnPathDomain ?? config.hostname,
			log,
		});
	}

	static async open(config: MessageWriterConfig, log: Logger): Promise<MessageWriter> {
		const store = await openStore(config, 'ingest', config.node, log);
		return new MessageWriter(config, store, new ParserPool(config.parseWorkers, config.parseTimeout), log);
	}

	async store(mail: IncomingMail): Promise<StoredMail> {
		const received = new Date();
		const { parsed, error } = await this.parser.parse(mail.raw);
		if (error) this.log.warn({ err: error.message, size: mail.raw.byteLength }, 'message could not be parsed; stored raw');
		const parsedMail: ParsedIncomingMail = { ...mail, parsed: { ...parsed, spam: withSenderAuth(parsed.spam, mail.auth) }, received };
		const stored = await this.database.transaction(async (parts) => {
			const records = await parts.messages.insert(parsedMail);
			const events = mail.localCopy ? await parts.outgoing.markDelivered(mail.localCopy.outgoingId, mail.localCopy.addresses) : [];
			events.push(...(await this.reports(parts, parsedMail, records)));
			const settings: InboxSettings[] = [];
			for (const record of records) settings.push(await parts.inboxSettings.of(record.inbox, record.domain));
			const effects = {
				webhookMessageIds: await this.webhooks.record(parts, records, settings, {
					localCopyOf: mail.localCopy?.outgoingId,
					automatic: isAutomaticReply(parsedMail.parsed.headers),
				}),
				forwardIds: await this.forwards.record(parts, records, settings, parsedMail),
				events,
			};
			await parts.announce({
				messages: records.map((record) => ({ id: record._id, inbox: record.inbox })),
				webhooks: effects.webhookMessageIds.length > 0 || events.length > 0,
				forwards: effects.forwardIds.length > 0,
			});
			return { records, effects };
		});
		return { ...stored, unparsed: error !== undefined };
	}

	/**
	 * A message to a return path of sent mail is a report on its recipient (a bounce, a delay, a complaint): applied to the
	 * sent message in this transaction, its record (in the sender's inbox) linked as the report. Mail to a return path that is
	 * no report (an out-of-office answer) is kept and changes nothing.
	 */
	private async reports(parts: StoreParts, mail: ParsedIncomingMail, records: MessageRecord[]): Promise<RecordedEvent[]> {
		const events: RecordedEvent[] = [];
		for (const { inbox, returnPathOf } of mail.recipients) {
			const record = returnPathOf && records.find((candidate) => candidate.inbox === inbox);
			const report = record && readDeliveryReport(mail.parsed, returnPathOf.address);
			if (report) events.push(...(await parts.outgoing.report(returnPathOf, report, record._id)));
		}
		return events;
	}

	/** Calls `listener` after each group commit of mail, once it is durable. */
	onCommit(listener: (commit: CommitFigures) => void): void {
		this.database.onCommit(listener);
	}

	/** Call once nothing more is being stored. */
	async close(): Promise<void> {
		await this.database.close();
		await this.parser.close();
	}
}
