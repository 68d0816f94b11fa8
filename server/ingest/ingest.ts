import { EventEmitter } from 'node:events';
import type { ParserPool } from '../parse/parser-pool';
import type { GroupCommit } from '../store/group-commit';
import type { Delivery, MessageRecord, MessageStore, Recipient } from '../store/messages';
import type { Logger } from '../log';
import type { RawMessage } from './spool';

export interface IncomingMail {
	/** The message as received: ideally backed by a SharedArrayBuffer, or spooled to a file when large (see readRaw). */
	raw: RawMessage;
	recipients: Recipient[];
	/** Address of the sending host. */
	ip: string;
	/** Address of the receiving host. */
	via: string;
	rtls: boolean;
}

/**
 * Runs inside the transaction that stores a delivery, so what it records (e.g. webhook
 * deliveries to make) commits or rolls back together with the messages.
 */
export type TransactionHook = (records: MessageRecord[], delivery: Delivery) => void;

/**
 * The one path by which mail enters the store, for SMTP and for local outbound delivery alike:
 * parse off the event loop, then commit all recipients' records in a group commit.
 * Resolves only once the records are durable; then emits `delivered`.
 */
export class Ingest extends EventEmitter<{ delivered: [MessageRecord[]] }> {
	private readonly inFlight = new Set<Promise<unknown>>();
	private readonly transactionHooks: TransactionHook[] = [];

	constructor(
		private readonly parser: ParserPool,
		private readonly commit: GroupCommit,
		private readonly messages: MessageStore,
		private readonly log: Logger,
	) {
		super();
	}

	addTransactionHook(hook: TransactionHook): void {
		this.transactionHooks.push(hook);
	}

	deliver(mail: IncomingMail): Promise<MessageRecord[]> {
		const done = this.store(mail);
		this.inFlight.add(done);
		done.finally(() => this.inFlight.delete(done)).catch(() => undefined);
		return done;
	}

	/** Resolves when every delivery started so far has settled. */
	async settled(): Promise<void> {
		while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
	}

	private async store(mail: IncomingMail): Promise<MessageRecord[]> {
		const received = new Date();
		const { parsed, error } = await this.parser.parse(mail.raw);
		if (error) this.log.warn({ err: error.message, size: mail.raw.byteLength }, 'message could not be parsed; stored raw');
		const delivery: Delivery = { ...mail, parsed, received };
		const records = await this.commit.run(() => {
			const stored = this.messages.insert(delivery);
			for (const hook of this.transactionHooks) hook(stored, delivery);
			return stored;
		});
		this.emit('delivered', records);
		return records;
	}
}
