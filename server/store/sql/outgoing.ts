import type { OutgoingRecipient, OutgoingRecord } from '../../schemas/outgoing';
import { isSpooled, type SpooledBytes } from '../../bytes/spooled-bytes';
import type { PiecedBytes } from '../../bytes/stored-bytes';
import { filePiecesSync } from '../pieces';
import type { Lease, NewOutgoing, OutboxEntry, OutgoingStore, Outcome, RecordedEvent, Settlement } from '../store';
import type { DeliveryReport } from '../../mail/delivery-report';
import { returnPathToken, type ReturnPathOwner } from '../../mail/return-path';
import { nowIso } from '../ids';
import { deliveredTo, reportedBy, settledBy, storedStatus, toOutgoingRecord, type OutgoingRow } from '../outgoing-records';
import { recordEvents, type EventDetail } from './delivery-events';
import { suppress } from './suppressions';
import { LeasedRows } from './leases';
import { sentThread } from './threads';
import type { SqlDb } from './sql-db';

/** Tells the other nodes of the database, in the transaction `tx`, of the delivery events it recorded (`ids`). */
export type EventAnnouncer = (tx: SqlDb, ids: string[]) => Promise<void>;

/** Sent mail and the outbox of deliveries still to make. */
export class SqlOutgoingStore implements OutgoingStore {
	private readonly leased: LeasedRows;

	constructor(
		private readonly db: SqlDb,
		/** PostgreSQL's: other nodes push the events to their websockets. SQLite has no other node. */
		private readonly announceEvents?: EventAnnouncer,
	) {
		this.leased = new LeasedRows(db, 'outbox', 'message_id', 'true');
	}

	/** The conditional UPDATE waits for any other send of the account and then counts its credits again: never overspent. */
	record(message: NewOutgoing, lease: Lease): Promise<{ record: OutgoingRecord; creditsRemaining: number } | null> {
		return this.db.transaction(async (tx) => {
			const charged = await tx.row<{ credits: number }>(
				'UPDATE accounts SET credits = credits - $1 WHERE id = $2 AND credits >= $1 RETURNING credits',
				[message.recipients.length, message.accountId],
			);
			if (!charged) return null;
			const recipients = message.recipients.map((r) => ({ ...r, status: 'queued', error: null }));

			const thread = await sentThread(tx, message);
			const row = await tx.row<OutgoingRow>(
				`INSERT INTO outgoing_messages (id, account_id, from_address, subject, sent, recipients_json, in_reply_to, thread_id, message_key,
					status) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'queued') RETURNING *`,
				// prettier-ignore
				[
					message.id, message.accountId, message.from, message.subject, message.sent, JSON.stringify(recipients), message.inReplyTo,
					thread.threadId, thread.messageKey,
				],
			);
			// Each recipient's return path names it and this message: the reports sent back to it are matched by its token.
			for (const { address, returnPath } of message.recipients) {
				const token = returnPath && returnPathToken(returnPath);
				if (token) await tx.run('INSERT INTO return_paths (token, outgoing_id, address) VALUES ($1, $2, $3)', [token, message.id, address]);
			}
			const spooled = isSpooled(message.raw) ? message.raw : undefined;
			await tx.run(
				'INSERT INTO outbox (message_id, raw, ip, via, next_attempt, lease_node, lease_until) VALUES ($1, $2, $3, $4, $5, $6, $7)',
				[message.id, spooled ? Buffer.alloc(0) : message.raw, message.ip, message.via, Date.now(), lease.node, lease.until],
			);
			if (spooled) await writeRawPieces(tx, message.id, spooled);
			// With the message, so that no reply can come before its hook.
			if (message.replyHook) {
				await tx.run(
					'INSERT INTO reply_hooks (outgoing_id, account_id, thread_id, url, expires_at, created) VALUES ($1, $2, $3, $4, $5, $6)',
					[message.id, message.accountId, thread.threadId, message.replyHook.url, message.replyHook.expiresAt, message.sent],
				);
			}
			return { record: toOutgoingRecord(row!), creditsRemaining: charged.credits };
		});
	}

	async get(id: string): Promise<OutgoingRecord | undefined> {
		const row = await this.db.row<OutgoingRow>('SELECT * FROM outgoing_messages WHERE id = $1', [id]);
		return row && toOutgoingRecord(row);
	}

	async find(accountId: string, id: string): Promise<OutgoingRecord | undefined> {
		const row = await this.db.row<OutgoingRow>('SELECT * FROM outgoing_messages WHERE id = $1 AND account_id = $2', [id, accountId]);
		return row && toOutgoingRecord(row);
	}

	async list(accountId: string, limit: number): Promise<OutgoingRecord[]> {
		const rows = await this.db.rows<OutgoingRow>('SELECT * FROM outgoing_messages WHERE account_id = $1 ORDER BY seq DESC LIMIT $2', [
			accountId,
			limit,
		]);
		return rows.map(toOutgoingRecord);
	}

	/** The retention sweep's share of sent mail. */
	deleteSettledBefore(before: string, limit: number): Promise<number> {
		return this.db.run(
			`DELETE FROM outgoing_messages WHERE seq IN (SELECT seq FROM outgoing_messages o WHERE sent < $1
				AND NOT EXISTS (SELECT 1 FROM outbox WHERE message_id = o.id) ORDER BY sent LIMIT $2)`,
			[before, limit],
		);
	}

	async claimDue(now: number, limit: number, lease: Lease): Promise<string[]> {
		const rows = await this.leased.claim<{ message_id: string; next_attempt: number }>(
			now,
			limit,
			lease.node,
			lease.until,
			'message_id, next_attempt',
		);
		return rows.map((row) => row.message_id);
	}

	renewLeases(lease: Lease): Promise<void> {
		return this.leased.renew(lease.node, lease.until);
	}

	releaseLeases(node: string, ids?: string[]): Promise<void> {
		return this.leased.release(node, ids);
	}

	nextDue(now: number): Promise<number | undefined> {
		return this.leased.nextDue(now);
	}

	async entry(id: string): Promise<OutboxEntry | undefined> {
		const row = await this.db.row<{ raw: Buffer; pieced: number | null; ip: string; via: string }>(
			`SELECT raw, ip, via, CASE WHEN length(raw) = 0
				THEN (SELECT sum(length(p.data)) FROM outbox_raw_pieces p WHERE p.message_id = o.message_id) END AS pieced
				FROM outbox o WHERE message_id = $1`,
			[id],
		);
		const record = row && (await this.get(id));
		if (!row || !record) return undefined;
		const { raw, pieced, ip, via } = row;
		return { record, raw: pieced === null ? raw : this.rawPieces(id, pieced), ip, via };
	}

	/** A raw source stored in pieces, `length` bytes in all: each piece read by its own query, when the attempt asks for it. */
	private rawPieces(id: string, length: number): PiecedBytes {
		const { outside } = this.db;
		const sql = 'SELECT data FROM outbox_raw_pieces WHERE message_id = $1 AND seq = $2';
		return { length, piece: async (seq) => (await outside.row<{ data: Buffer }>(sql, [id, seq]))?.data };
	}

	settle(id: string, outcomes: Map<string, Outcome>, retryAt: number | null): Promise<Settlement> {
		return this.db.transaction(async (tx) => {
			const before = (await lockedRecord(tx, id))!;
			const { recipients, status, lastError } = settledBy(before, outcomes, retryAt !== null);
			const events = await this.recordEvents(tx, before.accountId, before, recipients);
			const row = await tx.row<OutgoingRow>(
				`UPDATE outgoing_messages SET recipients_json = $1, status = $2, last_error = $3, attempts = attempts + 1 WHERE id = $4
					RETURNING *`,
				[JSON.stringify(recipients), storedStatus(status), lastError, id],
			);
			if (status === 'queued') {
				await tx.run('UPDATE outbox SET lease_node = NULL, lease_until = NULL, next_attempt = $1 WHERE message_id = $2', [
					retryAt ?? 0,
					id,
				]);
			} else await tx.run('DELETE FROM outbox WHERE message_id = $1', [id]);
			return { record: toOutgoingRecord(row!), events };
		});
	}

	markDelivered(id: string, addresses: string[]): Promise<RecordedEvent[]> {
		return this.db.transaction(async (tx) => {
			const before = (await lockedRecord(tx, id))!;
			const { recipients, status } = deliveredTo(before, addresses);
			await tx.run('UPDATE outgoing_messages SET recipients_json = $1, status = $2 WHERE id = $3', [
				JSON.stringify(recipients),
				storedStatus(status),
				id,
			]);
			return this.recordEvents(tx, before.accountId, before, recipients);
		});
	}

	returnPath(token: string): Promise<ReturnPathOwner | undefined> {
		return this.db.row<ReturnPathOwner>(
			`SELECT r.outgoing_id AS "outgoingId", o.account_id AS "accountId", r.address, o.from_address AS "from"
				FROM return_paths r JOIN outgoing_messages o ON o.id = r.outgoing_id WHERE r.token = $1`,
			[token.toLowerCase()],
		);
	}

	report(owner: ReturnPathOwner, report: DeliveryReport, bounceMessageId: string): Promise<RecordedEvent[]> {
		return this.db.transaction(async (tx) => {
			const before = await lockedRecord(tx, owner.outgoingId);
			if (!before) return [];
			const { recipients, status } = reportedBy(before, owner.address, report, bounceMessageId);
			await tx.run('UPDATE outgoing_messages SET recipients_json = $1, status = $2 WHERE id = $3', [
				JSON.stringify(recipients),
				storedStatus(status),
				owner.outgoingId,
			]);
			const events = await this.recordEvents(tx, owner.accountId, before, recipients, {
				reportingMta: report.reportingMta,
				bounceMessageId,
			});
			const reported = events.map(({ event }) => event).find((event) => event.type === 'bounced' || event.type === 'complained');
			if (reported) {
				await suppress(tx, {
					account_id: owner.accountId,
					address: owner.address,
					reason: reported.type as 'bounced' | 'complained',
					outgoing_id: owner.outgoingId,
					status_code: report.statusCode,
					diagnostic: report.diagnostic,
					bounce_message_id: bounceMessageId,
					created: nowIso(),
				});
			}
			return events;
		});
	}

	/** Records the events of a change (see recordEvents) and announces them, in the transaction that makes the change. */
	private async recordEvents(
		tx: SqlDb,
		accountId: string,
		before: OutgoingRecord,
		after: OutgoingRecipient[],
		detail?: EventDetail,
	): Promise<RecordedEvent[]> {
		const events = await recordEvents(tx, accountId, before, after, detail);
		if (events.length && this.announceEvents)
			await this.announceEvents(
				tx,
				events.map(({ event }) => event._id),
			);
		return events;
	}
}

/**
 * A spooled message's raw source copied into the outbox a piece at a time (the outbox row's `raw` left empty), so memory
 * holds a piece, never the message; the pieces go with the row (ON DELETE CASCADE).
 */
async function writeRawPieces(tx: SqlDb, id: string, spooled: SpooledBytes): Promise<void> {
	let seq = 0;
	// Each piece is written before the next is read into the same buffer.
	for (const piece of filePiecesSync(spooled.spoolPath))
		await tx.run('INSERT INTO outbox_raw_pieces (message_id, seq, data) VALUES ($1, $2, $3)', [id, seq++, piece]);
}

/**
 * The record, its row locked until the transaction ends: an attempt settling recipients on one node and the local
 * copies marking theirs on another each rewrite the recipients after the other, neither losing what the other wrote.
 */
async function lockedRecord(tx: SqlDb, id: string): Promise<(OutgoingRecord & { accountId: string }) | undefined> {
	const row = await tx.row<OutgoingRow>(`SELECT * FROM outgoing_messages WHERE id = $1${tx.dialect.forUpdate}`, [id]);
	return row && { ...toOutgoingRecord(row), accountId: row.account_id };
}
