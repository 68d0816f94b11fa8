import type { Db } from './database';
import type { AttemptStatus, DeliveryStatus, WebhookAttempt, WebhookDelivery } from '../schemas/webhook';
import { newId } from './ids';

/** What is posted: the webhook payload, or a Slack summary (with the From and To lines or without). */
export type DeliveryKind = 'webhook' | 'slack' | 'slack-to-from';

export interface DeliveryRow {
	id: string;
	message_id: string;
	account_id: string;
	address: string;
	url: string;
	kind: DeliveryKind;
	/** The subscription the delivery is made for; null for the address's own webhook (or Slack webhook). */
	subscription_id: string | null;
	status: DeliveryStatus;
	attempts: number;
	schedule_start: number;
	next_attempt: number | null;
	last_status_code: number | null;
	last_error: string | null;
	created: number;
	updated: number;
}

/** A delivery to make: of a message, by an account (its secret signs it, its Recent Activity shows it), to a URL. */
export interface NewDelivery {
	messageId: string;
	accountId: string;
	address: string;
	url: string;
	kind: DeliveryKind;
	/** Set when the delivery is made for one of the address's subscriptions. */
	subscriptionId?: string;
}

/** What one attempt came to, as the worker records it. */
export interface AttemptRecord {
	status: AttemptStatus;
	statusCode: number | null;
	error: string | null;
	durationMs: number;
	time: number;
	/** When the next attempt is due (status retrying only). */
	nextRetry: number | null;
}

interface AttemptRow {
	id: string;
	delivery_id: string;
	message_id: string;
	address: string;
	url: string;
	subscription_id: string | null;
	attempt: number;
	status: AttemptStatus;
	status_code: number | null;
	error: string | null;
	duration_ms: number;
	time: number;
	next_retry: number | null;
}

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function toStatusView(row: DeliveryRow): WebhookDelivery {
	return {
		_id: row.id,
		messageId: row.message_id,
		address: row.address,
		url: row.url,
		subscriptionId: row.subscription_id,
		status: row.status,
		attempts: row.attempts,
		lastStatusCode: row.last_status_code,
		lastError: row.last_error,
		nextRetry: row.status === 'pending' ? isoOrNull(row.next_attempt) : null,
		created: new Date(row.created).toISOString(),
		updated: new Date(row.updated).toISOString(),
	};
}

const toAttemptView = (row: AttemptRow): WebhookAttempt => ({
	_id: row.id,
	deliveryId: row.delivery_id,
	messageId: row.message_id,
	address: row.address,
	url: row.url,
	subscriptionId: row.subscription_id,
	attempt: row.attempt,
	status: row.status,
	statusCode: row.status_code,
	error: row.error,
	durationMs: row.duration_ms,
	time: new Date(row.time).toISOString(),
	nextRetry: isoOrNull(row.next_retry),
});

const DELIVERY_STATUS_OF: Record<AttemptStatus, DeliveryStatus> = {
	delivered: 'delivered',
	retrying: 'pending',
	failed: 'failed',
	refused: 'refused',
};

/** Webhook deliveries (one per message record that has a webhook) and the log of their attempts. */
export class WebhookDeliveryStore {
	private readonly insertDelivery;
	private readonly selectOne;
	private readonly selectPendingForMessage;
	private readonly selectForMessage;
	private readonly selectDue;
	private readonly selectDueAfter;
	private readonly selectNextDue;
	private readonly updateAfterAttempt;
	private readonly insertAttempt;
	private readonly restart;

	constructor(private readonly db: Db) {
		this.insertDelivery =
			db.prepare(`INSERT INTO webhook_deliveries (id, message_id, account_id, address, url, kind, subscription_id, status, next_attempt,
				created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`);
		this.selectOne = db.prepare('SELECT * FROM webhook_deliveries WHERE id = ?');
		this.selectPendingForMessage = db.prepare("SELECT * FROM webhook_deliveries WHERE message_id = ? AND status = 'pending'");
		this.selectForMessage = db.prepare(
			`SELECT * FROM webhook_deliveries WHERE message_id = ? AND address = ? AND kind = 'webhook' AND subscription_id IS NULL
				ORDER BY created DESC LIMIT 1`,
		);
		const due = "SELECT * FROM webhook_deliveries WHERE status = 'pending' AND next_attempt <= ?";
		this.selectDue = db.prepare(`${due} ORDER BY next_attempt, id LIMIT ?`);
		this.selectDueAfter = db.prepare(`${due} AND (next_attempt, id) > (?, ?) ORDER BY next_attempt, id LIMIT ?`);
		this.selectNextDue = db.prepare(
			"SELECT MIN(next_attempt) AS next FROM webhook_deliveries WHERE status = 'pending' AND next_attempt > ?",
		);
		this.updateAfterAttempt = db.prepare(`UPDATE webhook_deliveries SET status = @status, attempts = @attempt, next_attempt = @nextRetry,
			last_status_code = @statusCode, last_error = @error, updated = @time WHERE id = @id`);
		this.insertAttempt = db.prepare(`INSERT INTO webhook_attempts
			(id, delivery_id, account_id, message_id, address, url, subscription_id, attempt, status, status_code, error, duration_ms, time,
				next_retry) VALUES (@attemptId, @id, @accountId, @messageId, @address, @url, @subscriptionId, @attempt, @attemptStatus, @statusCode,
				@error, @durationMs, @time, @nextRetry)`);
		this.restart = db.prepare(`UPDATE webhook_deliveries SET status = 'pending', schedule_start = attempts, next_attempt = ?, updated = ?
			WHERE id = ? AND status IN ('failed', 'refused')`);
	}

	/** Records a delivery to make, due at once. Call inside the message's transaction. */
	create(delivery: NewDelivery, now: number): string {
		const id = newId();
		const { messageId, accountId, address, url, kind, subscriptionId = null } = delivery;
		this.insertDelivery.run(id, messageId, accountId, address, url, kind, subscriptionId, now, now, now);
		return id;
	}

	get(id: string): DeliveryRow | undefined {
		return this.selectOne.get(id) as DeliveryRow | undefined;
	}

	pendingForMessage(messageId: string): DeliveryRow[] {
		return this.selectPendingForMessage.all(messageId) as DeliveryRow[];
	}

	forMessage(messageId: string, address: string): DeliveryRow | undefined {
		return this.selectForMessage.get(messageId, address) as DeliveryRow | undefined;
	}

	/** Pending deliveries due by `now`, oldest first; `after` continues a previous page. */
	due(now: number, limit: number, after?: DeliveryRow): DeliveryRow[] {
		const rows = after ? this.selectDueAfter.all(now, after.next_attempt, after.id, limit) : this.selectDue.all(now, limit);
		return rows as DeliveryRow[];
	}

	/** When the earliest pending delivery after `now` is due. */
	nextDue(now: number): number | undefined {
		return (this.selectNextDue.get(now) as { next: number | null }).next ?? undefined;
	}

	/** Logs an attempt and moves the delivery on. Call inside a transaction. */
	recordAttempt(delivery: DeliveryRow, attempt: AttemptRecord): void {
		const values = {
			...attempt,
			id: delivery.id,
			attemptId: newId(),
			accountId: delivery.account_id,
			messageId: delivery.message_id,
			address: delivery.address,
			url: delivery.url,
			subscriptionId: delivery.subscription_id,
			attempt: delivery.attempts + 1,
			attemptStatus: attempt.status,
			status: DELIVERY_STATUS_OF[attempt.status],
		};
		this.updateAfterAttempt.run(values);
		this.insertAttempt.run(values);
	}

	/** Puts a failed or refused delivery back in the queue, due now, with a fresh retry schedule. */
	redeliver(id: string, now: number): boolean {
		return this.restart.run(now, now, id).changes === 1;
	}

	activity(accountId: string, filter: { address?: string; status?: AttemptStatus; limit: number }): WebhookAttempt[] {
		const conditions = ['account_id = @accountId'];
		if (filter.address !== undefined) conditions.push('address = @address');
		if (filter.status !== undefined) conditions.push('status = @status');
		const rows = this.db
			.prepare(`SELECT * FROM webhook_attempts WHERE ${conditions.join(' AND ')} ORDER BY time DESC, seq DESC LIMIT @limit`)
			.all({ accountId, ...filter }) as AttemptRow[];
		return rows.map(toAttemptView);
	}

	/** Deletes activity, and finished deliveries, older than `before` (epoch ms). */
	prune(before: number): void {
		this.db
			.transaction(() => {
				this.db.prepare('DELETE FROM webhook_attempts WHERE time < ?').run(before);
				this.db.prepare("DELETE FROM webhook_deliveries WHERE status != 'pending' AND updated < ?").run(before);
			})
			.immediate();
	}
}
