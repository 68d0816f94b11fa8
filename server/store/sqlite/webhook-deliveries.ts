import type { Statement } from 'better-sqlite3';
import type { Db } from './database';
import { releaseLeases } from './leases';
import type { AttemptStatus, WebhookAttempt } from '../../schemas/webhook';
import type { AttemptRecord, DeliveryRow, Lease, NewDelivery, StoredAttempt, WebhookDeliveryStore } from '../store';
import { newId } from '../ids';
import {
	DELIVERY_STATUS_OF,
	exchangeValues,
	toAttemptView,
	toStoredAttempt,
	type AttemptRow,
	type StoredAttemptRow,
} from '../webhook-views';

/** Webhook deliveries (one per message record that has a webhook) and the log of their attempts. */
export class SqliteWebhookDeliveryStore implements WebhookDeliveryStore {
	private readonly insertDelivery: Statement;
	private readonly selectOne: Statement;
	private readonly selectForMessage: Statement;
	private readonly claimDue: Statement;
	private readonly selectNextDue: Statement;
	private readonly updateAfterAttempt: Statement;
	private readonly insertAttempt: Statement;
	private readonly insertExchange: Statement;
	private readonly selectAttempt: Statement;
	private readonly restart: Statement;

	constructor(private readonly db: Db) {
		this.insertDelivery =
			db.prepare(`INSERT INTO webhook_deliveries (id, message_id, account_id, address, url, kind, subscription_id, status, next_attempt,
				created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`);
		this.selectOne = db.prepare('SELECT * FROM webhook_deliveries WHERE id = ?');
		this.selectForMessage = db.prepare(
			`SELECT * FROM webhook_deliveries WHERE message_id = ? AND address = ? AND kind = 'webhook' AND subscription_id IS NULL
				ORDER BY created DESC LIMIT 1`,
		);
		this.claimDue = db.prepare(`UPDATE webhook_deliveries SET lease_node = @node, lease_until = @until WHERE id IN (
				SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt <= @now AND (lease_until IS NULL OR lease_until < @now)
				ORDER BY next_attempt, id LIMIT @limit)
			RETURNING *`);
		// A delivery leased by a node is due again once the lease has run out (that node stopped without attempting it).
		this.selectNextDue = db
			.prepare(
				`SELECT MIN(due) FROM (SELECT CASE WHEN lease_until >= @now THEN max(next_attempt, lease_until + 1) ELSE next_attempt END AS due
					FROM webhook_deliveries WHERE status = 'pending') WHERE due > @now`,
			)
			.pluck();
		this.updateAfterAttempt = db.prepare(`UPDATE webhook_deliveries SET status = @status, attempts = @attempt, next_attempt = @nextRetry,
			last_status_code = @statusCode, last_error = @error, updated = @time, lease_node = NULL, lease_until = NULL WHERE id = @id`);
		this.insertAttempt = db.prepare(`INSERT INTO webhook_attempts
			(id, delivery_id, account_id, message_id, address, url, subscription_id, attempt, status, status_code, error, duration_ms, time,
				next_retry) VALUES (@attemptId, @id, @accountId, @messageId, @address, @url, @subscriptionId, @attempt, @attemptStatus, @statusCode,
				@error, @durationMs, @time, @nextRetry)`);
		this.insertExchange = db.prepare(`INSERT INTO webhook_exchanges (attempt_id, request_headers, request_body, request_bytes,
				response_headers, response_body, response_bytes) VALUES (?, ?, ?, ?, ?, ?, ?)`);
		this.selectAttempt = db.prepare(`SELECT a.*, e.request_headers, e.request_body, e.request_bytes, e.response_headers, e.response_body,
				e.response_bytes FROM webhook_attempts a LEFT JOIN webhook_exchanges e ON e.attempt_id = a.id WHERE a.id = ?`);
		this.restart = db.prepare(`UPDATE webhook_deliveries SET status = 'pending', schedule_start = attempts, next_attempt = ?, updated = ?,
				lease_node = NULL, lease_until = NULL
			WHERE id = ? AND status IN ('failed', 'refused')`);
	}

	async create(delivery: NewDelivery, now: number): Promise<string> {
		const id = newId();
		const { messageId, accountId, address, url, kind, subscriptionId = null } = delivery;
		this.insertDelivery.run(id, messageId, accountId, address, url, kind, subscriptionId, now, now, now);
		return id;
	}

	async get(id: string): Promise<DeliveryRow | undefined> {
		return this.selectOne.get(id) as DeliveryRow | undefined;
	}

	async forMessage(messageId: string, address: string): Promise<DeliveryRow | undefined> {
		return this.selectForMessage.get(messageId, address) as DeliveryRow | undefined;
	}

	async claim(now: number, limit: number, lease: Lease): Promise<DeliveryRow[]> {
		const rows = this.claimDue.all({ now, limit, ...lease }) as DeliveryRow[];
		// RETURNING gives rows in the order they were updated, not the subquery's.
		return rows.sort((a, b) => a.next_attempt! - b.next_attempt! || (a.id < b.id ? -1 : 1));
	}

	async renewLeases(lease: Lease): Promise<void> {
		this.db
			.prepare("UPDATE webhook_deliveries SET lease_until = ? WHERE lease_node = ? AND status = 'pending'")
			.run(lease.until, lease.node);
	}

	async releaseLeases(node: string, ids?: string[]): Promise<void> {
		releaseLeases(this.db, 'webhook_deliveries', 'id', node, ids);
	}

	async nextDue(now: number): Promise<number | undefined> {
		return (this.selectNextDue.get({ now }) as number | null) ?? undefined;
	}

	async recordAttempt(delivery: DeliveryRow, attempt: AttemptRecord): Promise<void> {
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
		this.db.transaction(() => {
			this.updateAfterAttempt.run(values);
			this.insertAttempt.run(values);
			if (attempt.exchange) this.insertExchange.run(values.attemptId, ...exchangeValues(attempt.exchange));
		})();
	}

	async redeliver(id: string, now: number): Promise<boolean> {
		return this.restart.run(now, now, id).changes === 1;
	}

	async activity(accountId: string, filter: { address?: string; status?: AttemptStatus; limit: number }): Promise<WebhookAttempt[]> {
		const conditions = ['account_id = @accountId'];
		if (filter.address !== undefined) conditions.push('address = @address');
		if (filter.status !== undefined) conditions.push('status = @status');
		const rows = this.db
			.prepare(`SELECT * FROM webhook_attempts WHERE ${conditions.join(' AND ')} ORDER BY time DESC, seq DESC LIMIT @limit`)
			.all({ accountId, ...filter }) as AttemptRow[];
		return rows.map(toAttemptView);
	}

	async attempt(id: string): Promise<StoredAttempt | undefined> {
		const row = this.selectAttempt.get(id) as StoredAttemptRow | undefined;
		return row && toStoredAttempt(row);
	}

	async prune(before: number): Promise<void> {
		this.db
			.transaction(() => {
				this.db.prepare('DELETE FROM webhook_attempts WHERE time < ?').run(before);
				this.db.prepare("DELETE FROM webhook_deliveries WHERE status != 'pending' AND updated < ?").run(before);
			})
			.immediate();
	}
}
