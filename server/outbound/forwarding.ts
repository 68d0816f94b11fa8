import type { Statement } from 'better-sqlite3';
import type { Db } from '../store/database';
import type { Ingest } from '../ingest/ingest';
import type { Delivery, MessageRecord } from '../store/messages';
import type { Logger } from '../log';
import { newId, nowIso } from '../store/ids';
import type { OutgoingStore } from './outgoing-store';
import type { Outbox } from './outbox';
import { rawBytes } from '../ingest/spool';

/** Added on top of every forwarded copy; it also tells how many times a message was forwarded already. */
export const FORWARDED_HEADER = 'X-Mailroom-Forwarded-For';
/** A message forwarded this many times is not forwarded again (so A -> B -> A cannot loop forever). */
export const MAX_FORWARD_HOPS = 3;

export interface ForwardingOptions {
	db: Db;
	ingest: Ingest;
	store: OutgoingStore;
	outbox: Outbox;
	isLocalDomain: (domain: string) => boolean;
	hasRelay: boolean;
	log: Logger;
}

interface ForwardTarget {
	forward: string;
	owner: string;
}

/**
 * The `forward` setting of private addresses: every message is re-sent, unchanged but for one added
 * header, to the forward address through the outbox, as outgoing mail of the address's owner (one credit).
 * The outgoing message is recorded in the message's own transaction, so an accepted message is never
 * left unforwarded; the outbox sends it once the transaction is committed and retries it like any mail.
 */
export class Forwarding {
	private readonly own: Statement;
	private readonly catchAll: Statement;
	/**
	 * Outgoing ids recorded for message records whose transaction has not been reported yet. (Should a transaction
	 * roll back, its entries stay here unused: their outbox rows were rolled back with it.)
	 */
	private readonly recorded = new Map<string, string>();

	constructor(private readonly options: ForwardingOptions) {
		this.own = options.db.prepare('SELECT owner, forward FROM addresses WHERE email = ?');
		this.catchAll = options.db.prepare('SELECT owner, forward FROM addresses WHERE catch_all = ? AND forward IS NOT NULL LIMIT 1');
		options.ingest.addTransactionHook((records, delivery) => this.record(records, delivery));
		options.ingest.on('delivered', (records) => this.send(records));
	}

	/** The address's own forward, else the one of its domain's catch-all (never across accounts). */
	private target(inbox: string, domain: string): ForwardTarget | undefined {
		const own = this.own.get(inbox) as { owner: string; forward: string | null } | undefined;
		if (own?.forward) return { forward: own.forward, owner: own.owner };
		const catchAll = this.catchAll.get(domain) as ForwardTarget | undefined;
		if (!catchAll || (own && own.owner !== catchAll.owner)) return undefined;
		return catchAll;
	}

	/** Runs inside the message's transaction. */
	private record(records: MessageRecord[], delivery: Delivery): void {
		const hops = delivery.parsed.headers.filter(([name]) => name.toLowerCase() === FORWARDED_HEADER.toLowerCase()).length;
		for (const record of records) {
			const target = this.target(record.inbox, record.domain);
			if (!target) continue;
			if (hops >= MAX_FORWARD_HOPS) {
				this.options.log.warn({ message: record._id, inbox: record.inbox, hops }, 'not forwarding a message that was forwarded too often already');
				continue;
			}
			const forwardDomain = target.forward.slice(target.forward.lastIndexOf('@') + 1);
			const route = this.options.isLocalDomain(forwardDomain) ? 'local' : 'relay';
			if (route === 'relay' && !this.options.hasRelay) {
				this.options.log.warn({ message: record._id, inbox: record.inbox, forward: target.forward }, 'not forwarding: no SMTP relay is configured');
				continue;
			}
			const id = newId();
			const raw = Buffer.concat([Buffer.from(`${FORWARDED_HEADER}: ${record.inbox}\r\n`), rawBytes(delivery.raw)]);
			const charged = this.options.store.record(
				{ id, accountId: target.owner, from: record.inbox, subject: record.subject, sent: nowIso(), recipients: [{ address: target.forward, route }], raw, ip: record.ip, via: record.via },
				Date.now(),
			);
			if (!charged) {
				this.options.log.warn({ message: record._id, inbox: record.inbox, forward: target.forward }, 'not forwarding: the account has no outgoing credits left');
				continue;
			}
			this.recorded.set(record._id, id);
		}
	}

	/** After the commit: the first attempt of each forward recorded with these records. */
	private send(records: MessageRecord[]): void {
		for (const record of records) {
			const id = this.recorded.get(record._id);
			if (id === undefined) continue;
			this.recorded.delete(record._id);
			void this.options.outbox.attempt(id);
		}
	}
}
