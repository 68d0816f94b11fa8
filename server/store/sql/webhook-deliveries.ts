import type { WebhookAttempt } from '../../schemas/webhook';
import type { ActivityFilter, AttemptRecord, DeliveryRow, Lease, NewDelivery, StoredAttempt, WebhookDeliveryStore } from '../store';
import { newId } from '../ids';
import {
	DELIVERY_STATUS_OF,
	exchangeValues,
	toAttemptView,
	toStoredAttempt,
	type AttemptRow,
	type StoredAttemptRow,
} from '../webhook-views';
import { LeasedRows } from './leases';
import { prepared, type SqlDb } from './sql-db';

/** Run in the transaction of every message that has a webhook. */
const CREATE = prepared(
	'create-delivery',
	`INSERT INTO webhook_deliveries (id, message_id, account_id, address, url, kind, subscription_id, event_id, status, next_attempt,
		created, updated, reply_hook_expires) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $9, $9, $10)`,
);

/** Webhook deliveries (one per message record that has a webhook) and the log of their attempts. */
export class SqlWebhookDeliveryStore implements WebhookDeliveryStore {
	private readonly leased: LeasedRows;

	constructor(protected readonly db: SqlDb) {
		this.leased = new LeasedRows(db, 'webhook_deliveries', 'id', "status = 'pending'");
	}

	async create(delivery: NewDelivery, now: number): Promise<string> {
		const id = newId();
		const { messageId, accountId, address, url, kind, subscriptionId = null, eventId = null, replyHookExpires = null } = delivery;
		await this.db.run(CREATE, [id, messageId, accountId, address, url, kind, subscriptionId, eventId, now, replyHookExpires]);
		return id;
	}

	get(id: string): Promise<DeliveryRow | undefined> {
		return this.db.row<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = $1', [id]);
	}

	forMessage(messageId: string, address: string): Promise<DeliveryRow | undefined> {
		return this.db.row<DeliveryRow>(
			`SELECT * FROM webhook_deliveries WHERE message_id = $1 AND address = $2 AND kind = 'webhook' AND subscription_id IS NULL AND event_id IS NULL
				ORDER BY created DESC LIMIT 1`,
			[messageId, address],
		);
	}

	claim(now: number, limit: number, lease: Lease): Promise<DeliveryRow[]> {
		return this.leased.claim<DeliveryRow>(now, limit, lease.node, lease.until);
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

	/** The delivery moves on, its lease ends, and the attempt is logged with its exchange, together or not at all. */
	recordAttempt(delivery: DeliveryRow, attempt: AttemptRecord): Promise<void> {
		const attemptId = newId();
		return this.db.transaction(async (tx) => {
			await tx.run(
				`UPDATE webhook_deliveries SET status = $1, attempts = $2, next_attempt = $3, last_status_code = $4, last_error = $5,
					updated = $6, lease_node = NULL, lease_until = NULL WHERE id = $7`,
				[
					DELIVERY_STATUS_OF[attempt.status],
					delivery.attempts + 1,
					attempt.nextRetry,
					attempt.statusCode,
					attempt.error,
					attempt.time,
					delivery.id,
				],
			);
			// prettier-ignore
			await tx.run(
				`INSERT INTO webhook_attempts (id, delivery_id, account_id, message_id, address, url, subscription_id, attempt, status,
					status_code, error, duration_ms, time, next_retry) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
				[
					attemptId, delivery.id, delivery.account_id, delivery.message_id, delivery.address, delivery.url, delivery.subscription_id,
					delivery.attempts + 1, attempt.status, attempt.statusCode, attempt.error, attempt.durationMs, attempt.time, attempt.nextRetry,
				],
			);
			if (attempt.exchange)
				await tx.run(
					`INSERT INTO webhook_exchanges (attempt_id, request_headers, request_body, request_bytes, response_headers, response_body,
						response_bytes) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
					[attemptId, ...exchangeValues(attempt.exchange)],
				);
		});
	}

	async redeliver(id: string, now: number): Promise<boolean> {
		const restarted = await this.db.run(
			`UPDATE webhook_deliveries SET status = 'pending', schedule_start = attempts, next_attempt = $1, updated = $1,
				lease_node = NULL, lease_until = NULL
			WHERE id = $2 AND status IN ('failed', 'refused')`,
			[now, id],
		);
		return restarted === 1;
	}

	async activity(accountId: string, filter: ActivityFilter): Promise<WebhookAttempt[]> {
		const conditions = ['account_id = $1'];
		const params: unknown[] = [accountId, filter.limit];
		if (filter.address !== undefined) conditions.push(`address = $${params.push(filter.address)}`);
		if (filter.status !== undefined) conditions.push(`status = $${params.push(filter.status)}`);
		if (filter.subscriptionId !== undefined) conditions.push(`subscription_id = $${params.push(filter.subscriptionId)}`);
		const rows = await this.db.rows<AttemptRow>(
			`SELECT * FROM webhook_attempts WHERE ${conditions.join(' AND ')} ORDER BY time DESC, seq DESC LIMIT $2`,
			params,
		);
		return rows.map(toAttemptView);
	}

	async attempt(id: string): Promise<StoredAttempt | undefined> {
		const row = await this.db.row<StoredAttemptRow>(
			`SELECT a.*, e.request_headers, e.request_body, e.request_bytes, e.response_headers, e.response_body, e.response_bytes
				FROM webhook_attempts a LEFT JOIN webhook_exchanges e ON e.attempt_id = a.id WHERE a.id = $1`,
			[id],
		);
		return row && toStoredAttempt(row);
	}

	prune(before: number): Promise<void> {
		return this.db.transaction(async (tx) => {
			await tx.run('DELETE FROM webhook_attempts WHERE time < $1', [before]);
			await tx.run("DELETE FROM webhook_deliveries WHERE status <> 'pending' AND updated < $1", [before]);
		});
	}
}
