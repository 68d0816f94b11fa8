import type { Statement } from 'better-sqlite3';
import type { Db } from '../store/database';
import type { Delivery, MessageRecord } from '../store/messages';
import type { Logger } from '../log';
import { newId, nowIso } from '../store/ids';
import type { OutgoingStore } from './outgoing-store';
import { rawBytes } from '../ingest/spool';

/** Added on top of every forwarded copy; it also tells how many times a message was forwarded already. */
export const FORWARDED_HEADER = 'X-Mailroom-Forwarded-For';
/** A message forwarded this many times is not forwarded again (so A -> B -> A cannot loop forever). */
export const MAX_FORWARD_HOPS = 3;

export interface ForwardingOptions {
	db: Db;
	store: OutgoingStore;
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
 * The outgoing message is recorded on the ingest thread in the message's own transaction, so an accepted
 * message is never left unforwarded; the outbox sends it once the transaction is durable and retries it like any mail.
 */
export class Forwarding {
	private readonly own: Statement;
	private readonly catchAll: Statement;

	constructor(private readonly options: ForwardingOptions) {
		this.own = options.db.prepare('SELECT owner, forward FROM addresses WHERE email = ?');
		this.catchAll = options.db.prepare('SELECT owner, forward FROM addresses WHERE catch_all = ? AND forward IS NOT NULL LIMIT 1');
	}

	/** The address's own forward, else the one of its domain's catch-all (never across accounts). */
	private target(inbox: string, domain: string): ForwardTarget | undefined {
		const own = this.own.get(inbox) as { owner: string; forward: string | null } | undefined;
		if (own?.forward) return { forward: own.forward, owner: own.owner };
		const catchAll = this.catchAll.get(domain) as ForwardTarget | undefined;
		if (!catchAll || (own && own.owner !== catchAll.owner)) return undefined;
		return catchAll;
	}

	/** Runs inside the message's transaction; returns the ids of the outgoing messages it recorded. */
	record(records: MessageRecord[], delivery: Delivery): string[] {
		const forwards: string[] = [];
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
			forwards.push(id);
		}
		return forwards;
	}
}
