import type { ParsedIncomingMail } from '../mail/incoming-mail';
import type { MessageRecord } from '../schemas/message';
import type { Logger } from '../log';
import { newId, nowIso } from '../store/ids';
import { leaseOf, type StoreParts } from '../store/store';
import type { InboxSettings } from '../store/inbox-settings';
import { rawBytes } from '../bytes/spooled-bytes';
import { newReturnPath } from '../mail/return-path';

/** Added on top of every forwarded copy; it also tells how many times a message was forwarded already. */
export const FORWARDED_HEADER = 'X-Mailroom-Forwarded-For';
/** A message forwarded this many times is not forwarded again (so A -> B -> A cannot loop forever). */
export const MAX_FORWARD_HOPS = 3;

export interface ForwardRecorderOptions {
	/** This node, whose outbox makes the first attempt once the message is durable: the forwards are leased to it (for `lease` ms). */
	node: string;
	lease: number;
	/** Whether mail to a domain stays here, given whether an account owns it (asked in the message's transaction). */
	isLocalDomain: (domain: string, isOwned: (domain: string) => Promise<boolean>) => Promise<boolean>;
	hasRelay: boolean;
	/** The domain of a relayed forward's return path (see newReturnPath). */
	returnPathDomain: string;
	log: Logger;
}

/**
 * The `forward` setting of private addresses (each inbox's own, else its catch-all's: see InboxSettings): every message
 * is re-sent, unchanged but for one added header, to the forward address through the outbox, as outgoing mail of the
 * address's owner (one credit). The outgoing message is recorded on the ingest thread in the message's own transaction,
 * so an accepted message is never left unforwarded; the outbox sends it once the transaction is durable and retries it
 * like any mail.
 */
export class ForwardRecorder {
	constructor(private readonly options: ForwardRecorderOptions) {}

	/**
	 * Runs inside the message's transaction, `settings[i]` those of `records[i]`'s inbox; returns the ids of the outgoing
	 * messages it recorded.
	 */
	async record(parts: StoreParts, records: MessageRecord[], settings: InboxSettings[], mail: ParsedIncomingMail): Promise<string[]> {
		const { node, lease, isLocalDomain, hasRelay, returnPathDomain, log } = this.options;
		const forwards: string[] = [];
		const hops = mail.parsed.headers.filter(([name]) => name.toLowerCase() === FORWARDED_HEADER.toLowerCase()).length;
		for (const [i, record] of records.entries()) {
			const forward = settings[i].get('forward');
			if (!forward) continue;
			const context = { message: record._id, inbox: record.inbox, forward: forward.value };
			if (hops >= MAX_FORWARD_HOPS) {
				log.warn({ ...context, hops }, 'not forwarding a message that was forwarded too often already');
				continue;
			}
			const domain = forward.value.slice(forward.value.lastIndexOf('@') + 1);
			const route = (await isLocalDomain(domain, (owned) => parts.domains.isOwned(owned))) ? 'local' : 'relay';
			if (route === 'relay' && !hasRelay) {
				log.warn(context, 'not forwarding: no SMTP relay is configured');
				continue;
			}
			const id = newId();
			const raw = Buffer.concat([Buffer.from(`${FORWARDED_HEADER}: ${record.inbox}\r\n`), rawBytes(mail.raw)]);
			const charged = await parts.outgoing.record(
				{
					id,
					accountId: forward.from.owner,
					from: record.inbox,
					subject: record.subject,
					sent: nowIso(),
					recipients: [
						{
							address: forward.value,
							field: 'to',
							route,
							note: null,
							returnPath: route === 'relay' ? newReturnPath(returnPathDomain) : null,
						},
					],
					inReplyTo: null,
					raw,
					ip: record.ip,
					via: record.via,
				},
				leaseOf(node, lease),
			);
			if (!charged) {
				log.warn(context, 'not forwarding: the account has no outgoing credits left');
				continue;
			}
			forwards.push(id);
		}
		return forwards;
	}
}
