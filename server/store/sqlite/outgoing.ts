import type { Db } from './database';
import { releaseLeases } from './leases';
import type { OutgoingRecord } from '../../schemas/outgoing';
import type { Lease, NewOutgoing, OutboxEntry, OutgoingStore, Outcome } from '../store';
import { deliveredTo, settledBy, toOutgoingRecord, type OutgoingRow } from '../outgoing-records';

/** Sent mail and the outbox of deliveries still to make. */
export class SqliteOutgoingStore implements OutgoingStore {
	constructor(private readonly db: Db) {}

	/** The conditional UPDATE means concurrent sends can never overspend. */
	async record(message: NewOutgoing, lease: Lease): Promise<{ record: OutgoingRecord; creditsRemaining: number } | null> {
		return this.db
			.transaction(() => {
				const charged = this.db
					.prepare('UPDATE accounts SET credits = credits - @n WHERE id = @id AND credits >= @n RETURNING credits')
					.get({ n: message.recipients.length, id: message.accountId }) as { credits: number } | undefined;
				if (!charged) return null;
				const recipients = message.recipients.map((r) => ({ ...r, status: 'queued', error: null }));
				this.db
					.prepare(
						`INSERT INTO outgoing_messages (id, account_id, from_address, subject, sent, recipients_json, in_reply_to, status)
					VALUES (?, ?, ?, ?, ?, ?, ?, 'queued')`,
					)
					.run(message.id, message.accountId, message.from, message.subject, message.sent, JSON.stringify(recipients), message.inReplyTo);
				this.db
					.prepare('INSERT INTO outbox (message_id, raw, ip, via, next_attempt, lease_node, lease_until) VALUES (?, ?, ?, ?, ?, ?, ?)')
					.run(message.id, message.raw, message.ip, message.via, Date.now(), lease.node, lease.until);
				return { record: this.getNow(message.id)!, creditsRemaining: charged.credits };
			})
			.immediate();
	}

	async get(id: string): Promise<OutgoingRecord | undefined> {
		return this.getNow(id);
	}

	async list(accountId: string, limit: number): Promise<OutgoingRecord[]> {
		return (
			this.db
				.prepare('SELECT * FROM outgoing_messages WHERE account_id = ? ORDER BY seq DESC LIMIT ?')
				.all(accountId, limit) as OutgoingRow[]
		).map(toOutgoingRecord);
	}

	/** The retention sweep's share of sent mail. */
	async deleteSettledBefore(before: string, limit: number): Promise<number> {
		return this.db
			.prepare(
				`DELETE FROM outgoing_messages WHERE seq IN (SELECT seq FROM outgoing_messages o WHERE sent < ?
					AND NOT EXISTS (SELECT 1 FROM outbox WHERE message_id = o.id) ORDER BY sent LIMIT ?)`,
			)
			.run(before, limit).changes;
	}

	async claimDue(now: number, limit: number, lease: Lease): Promise<string[]> {
		const rows = this.db
			.prepare(
				`UPDATE outbox SET lease_node = ?, lease_until = ? WHERE message_id IN (SELECT message_id FROM outbox
					WHERE next_attempt <= ? AND (lease_until IS NULL OR lease_until < ?) ORDER BY next_attempt, message_id LIMIT ?)
					RETURNING message_id, next_attempt`,
			)
			.all(lease.node, lease.until, now, now, limit) as { message_id: string; next_attempt: number }[];
		// RETURNING gives rows in the order they were updated, not the subquery's.
		rows.sort((a, b) => a.next_attempt - b.next_attempt || (a.message_id < b.message_id ? -1 : 1));
		return rows.map((row) => row.message_id);
	}

	async renewLeases(lease: Lease): Promise<void> {
		this.db.prepare('UPDATE outbox SET lease_until = ? WHERE lease_node = ?').run(lease.until, lease.node);
	}

	async releaseLeases(node: string, ids?: string[]): Promise<void> {
		releaseLeases(this.db, 'outbox', 'message_id', node, ids);
	}

	async nextDue(now: number): Promise<number | undefined> {
		const row = this.db
			.prepare(
				`SELECT MIN(due) AS next FROM (SELECT CASE WHEN lease_until >= @now THEN max(next_attempt, lease_until + 1) ELSE next_attempt END AS due
					FROM outbox) WHERE due > @now`,
			)
			.get({ now }) as { next: number | null };
		return row.next ?? undefined;
	}

	async entry(id: string): Promise<OutboxEntry | undefined> {
		const row = this.db.prepare('SELECT raw, ip, via FROM outbox WHERE message_id = ?').get(id) as Omit<OutboxEntry, 'record'> | undefined;
		const record = row && this.getNow(id);
		return record && { record, ...row };
	}

	async settle(id: string, outcomes: Map<string, Outcome>, retryAt: number | null): Promise<OutgoingRecord> {
		return this.db
			.transaction(() => {
				const { recipients, status, lastError } = settledBy(this.getNow(id)!, outcomes, retryAt !== null);
				this.db
					.prepare('UPDATE outgoing_messages SET recipients_json = ?, status = ?, last_error = ?, attempts = attempts + 1 WHERE id = ?')
					.run(JSON.stringify(recipients), status, lastError, id);
				if (status === 'queued')
					this.db
						.prepare('UPDATE outbox SET lease_node = NULL, lease_until = NULL, next_attempt = ? WHERE message_id = ?')
						.run(retryAt ?? 0, id);
				else this.db.prepare('DELETE FROM outbox WHERE message_id = ?').run(id);
				return this.getNow(id)!;
			})
			.immediate();
	}

	async markDelivered(id: string, addresses: string[]): Promise<void> {
		const { recipients, status } = deliveredTo(this.getNow(id)!, addresses);
		this.db
			.prepare('UPDATE outgoing_messages SET recipients_json = ?, status = ? WHERE id = ?')
			.run(JSON.stringify(recipients), status, id);
	}

	private getNow(id: string): OutgoingRecord | undefined {
		const row = this.db.prepare('SELECT * FROM outgoing_messages WHERE id = ?').get(id) as OutgoingRow | undefined;
		return row && toOutgoingRecord(row);
	}
}
