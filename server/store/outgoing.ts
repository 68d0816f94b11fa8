import type { Db } from './database';
import type { OutgoingRecipient, OutgoingRecord, RecipientField, Route, SendStatus } from '../schemas/outgoing';

export interface NewOutgoing {
	id: string;
	accountId: string;
	from: string;
	subject: string;
	sent: string;
	recipients: { address: string; field: RecipientField; route: Route }[];
	/** The _id of the received message this one answers. */
	inReplyTo: string | null;
	raw: Buffer;
	/** Recorded as `ip` / `via` on local copies, also when they are delivered by a retry. */
	ip: string;
	via: string;
}

/** What one delivery attempt achieved for a recipient; `temporary` failures are retried. */
export type Outcome = { status: 'delivered' } | { status: 'temporary' | 'permanent'; error: string };

export interface OutboxEntry {
	record: OutgoingRecord;
	raw: Buffer;
	ip: string;
	via: string;
}

interface OutgoingRow {
	id: string;
	from_address: string;
	subject: string;
	sent: string;
	recipients_json: string;
	in_reply_to: string | null;
	status: SendStatus;
	last_error: string | null;
	attempts: number;
}

function toRecord(row: OutgoingRow): OutgoingRecord {
	// Rows recorded before cc and bcc existed name no field: all their recipients were To recipients.
	const stored = JSON.parse(row.recipients_json) as (Omit<OutgoingRecipient, 'field'> & { field?: RecipientField })[];
	const recipients = stored.map((r): OutgoingRecipient => ({ ...r, field: r.field ?? 'to' }));
	const inField = (field: RecipientField) => recipients.filter((r) => r.field === field).map((r) => r.address);
	return {
		_id: row.id,
		from: row.from_address,
		to: inField('to'),
		cc: inField('cc'),
		bcc: inField('bcc'),
		subject: row.subject,
		inReplyTo: row.in_reply_to,
		status: row.status,
		sent: row.sent,
		lastError: row.last_error,
		attempts: row.attempts,
		recipients,
	};
}

/** Queued while any recipient is pending; then delivered only if every recipient was. */
function overallStatus(recipients: OutgoingRecipient[]): SendStatus {
	if (recipients.some((r) => r.status === 'queued')) return 'queued';
	return recipients.every((r) => r.status === 'delivered') ? 'delivered' : 'failed';
}

/** Sent mail and the outbox of deliveries still to make. */
export class OutgoingStore {
	constructor(private readonly db: Db) {}

	/**
	 * Takes one credit per recipient and records the message with its outbox entry, all in one
	 * transaction; the conditional UPDATE means concurrent sends can never overspend.
	 * Returns null (and changes nothing) when the account has too few credits.
	 */
	record(message: NewOutgoing, nextAttempt: number): { record: OutgoingRecord; creditsRemaining: number } | null {
		return this.db
			.transaction(() => {
				const charged = this.db
					.prepare('UPDATE accounts SET credits = credits - @n WHERE id = @id AND credits >= @n RETURNING credits')
					.get({ n: message.recipients.length, id: message.accountId }) as { credits: number } | undefined;
				if (!charged) return null;
				const recipients: OutgoingRecipient[] = message.recipients.map((r) => ({ ...r, status: 'queued', error: null }));
				this.db
					.prepare(
						`INSERT INTO outgoing_messages (id, account_id, from_address, subject, sent, recipients_json, in_reply_to, status)
					VALUES (?, ?, ?, ?, ?, ?, ?, 'queued')`,
					)
					.run(message.id, message.accountId, message.from, message.subject, message.sent, JSON.stringify(recipients), message.inReplyTo);
				// In flight from the start: the caller makes the first attempt at once.
				this.db
					.prepare('INSERT INTO outbox (message_id, raw, ip, via, next_attempt, in_flight) VALUES (?, ?, ?, ?, ?, 1)')
					.run(message.id, message.raw, message.ip, message.via, nextAttempt);
				return { record: this.get(message.id)!, creditsRemaining: charged.credits };
			})
			.immediate();
	}

	get(id: string): OutgoingRecord | undefined {
		const row = this.db.prepare('SELECT * FROM outgoing_messages WHERE id = ?').get(id) as OutgoingRow | undefined;
		return row && toRecord(row);
	}

	/** The account's sent mail, newest first. */
	list(accountId: string, limit: number): OutgoingRecord[] {
		return (
			this.db
				.prepare('SELECT * FROM outgoing_messages WHERE account_id = ? ORDER BY seq DESC LIMIT ?')
				.all(accountId, limit) as OutgoingRow[]
		).map(toRecord);
	}

	/**
	 * Deletes up to `limit` sent messages older than `before` (ISO time) whose deliveries are settled (none left in the
	 * outbox): the retention sweep's share of sent mail. Returns how many it deleted.
	 */
	deleteSettledBefore(before: string, limit: number): number {
		return this.db
			.prepare(
				`DELETE FROM outgoing_messages WHERE seq IN (SELECT seq FROM outgoing_messages o WHERE sent < ?
					AND NOT EXISTS (SELECT 1 FROM outbox WHERE message_id = o.id) ORDER BY sent LIMIT ?)`,
			)
			.run(before, limit).changes;
	}

	/** After a restart nothing is in flight any more: attempts cut short are due again. */
	releaseInFlight(): void {
		this.db.prepare('UPDATE outbox SET in_flight = 0 WHERE in_flight = 1').run();
	}

	/** Claims up to `limit` entries that are due, so no second attempt starts while they run. */
	claimDue(now: number, limit: number): string[] {
		return this.db
			.transaction(() => {
				const ids = (
					this.db
						.prepare('SELECT message_id FROM outbox WHERE in_flight = 0 AND next_attempt <= ? ORDER BY next_attempt LIMIT ?')
						.all(now, limit) as {
						message_id: string;
					}[]
				).map((row) => row.message_id);
				const claim = this.db.prepare('UPDATE outbox SET in_flight = 1 WHERE message_id = ?');
				for (const id of ids) claim.run(id);
				return ids;
			})
			.immediate();
	}

	/** When the next entry not in flight is due; undefined when the outbox has none. */
	nextDue(): number | undefined {
		const row = this.db.prepare('SELECT MIN(next_attempt) AS next FROM outbox WHERE in_flight = 0').get() as { next: number | null };
		return row.next ?? undefined;
	}

	entry(id: string): OutboxEntry | undefined {
		const row = this.db.prepare('SELECT raw, ip, via FROM outbox WHERE message_id = ?').get(id) as Omit<OutboxEntry, 'record'> | undefined;
		const record = row && this.get(id);
		return record && { record, ...row };
	}

	/**
	 * Applies the outcomes of an attempt. Recipients still pending are retried at `retryAt`,
	 * or fail when it is null (retries used up). The outbox entry goes once nothing is pending.
	 */
	settle(id: string, outcomes: Map<string, Outcome>, retryAt: number | null): OutgoingRecord {
		return this.db
			.transaction(() => {
				const record = this.get(id)!;
				let lastError = record.lastError;
				for (const recipient of record.recipients) {
					if (recipient.status !== 'queued') continue;
					const outcome = outcomes.get(recipient.address) ?? {
						status: 'temporary',
						error: 'the relay reported nothing for this recipient',
					};
					if (outcome.status === 'delivered') {
						recipient.status = 'delivered';
						recipient.error = null;
						continue;
					}
					lastError = recipient.error = outcome.error;
					if (outcome.status === 'permanent') recipient.status = 'failed';
					else if (retryAt === null) {
						recipient.status = 'failed';
						recipient.error = `gave up after ${record.attempts + 1} attempt${record.attempts ? 's' : ''}: ${outcome.error}`;
						lastError = recipient.error;
					}
				}
				const status = overallStatus(record.recipients);
				this.db
					.prepare('UPDATE outgoing_messages SET recipients_json = ?, status = ?, last_error = ?, attempts = attempts + 1 WHERE id = ?')
					.run(JSON.stringify(record.recipients), status, lastError, id);
				if (status === 'queued')
					this.db.prepare('UPDATE outbox SET in_flight = 0, next_attempt = ? WHERE message_id = ?').run(retryAt ?? 0, id);
				else this.db.prepare('DELETE FROM outbox WHERE message_id = ?').run(id);
				return this.get(id)!;
			})
			.immediate();
	}

	/** Marks local recipients delivered; runs inside the ingest transaction that stores their copies. */
	markDelivered(id: string, addresses: string[]): void {
		const record = this.get(id)!;
		for (const recipient of record.recipients) {
			if (addresses.includes(recipient.address)) {
				recipient.status = 'delivered';
				recipient.error = null;
			}
		}
		this.db.prepare('UPDATE outgoing_messages SET recipients_json = ? WHERE id = ?').run(JSON.stringify(record.recipients), id);
	}
}
