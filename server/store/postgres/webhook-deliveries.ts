import type { AttemptRecord, DeliveryRow } from '../store';
import { newId } from '../ids';
import { DELIVERY_STATUS_OF, exchangeValues } from '../webhook-views';
import { SqlWebhookDeliveryStore } from '../sql/webhook-deliveries';

/** The shared statements, but for recording an attempt: one statement, one round trip for every delivery made. */
export class PostgresWebhookDeliveryStore extends SqlWebhookDeliveryStore {
	/** The delivery moves on, its lease ends, and the attempt is logged with its exchange, together or not at all. */
	override async recordAttempt(delivery: DeliveryRow, attempt: AttemptRecord): Promise<void> {
		const exchange = attempt.exchange ? exchangeValues(attempt.exchange) : [null, null, null, null, null, null];
		// prettier-ignore
		await this.db.run(
			`WITH moved AS (
				UPDATE webhook_deliveries SET status = $1, attempts = $2, next_attempt = $3, last_status_code = $4, last_error = $5,
					updated = $6, lease_node = NULL, lease_until = NULL
				WHERE id = $7
			), logged AS (
				INSERT INTO webhook_attempts (id, delivery_id, account_id, message_id, address, url, subscription_id, attempt, status,
					status_code, error, duration_ms, time, next_retry)
				VALUES ($8, $7, $9, $10, $11, $12, $13, $2, $14, $4, $5, $15, $6, $3)
				RETURNING id
			)
			INSERT INTO webhook_exchanges (attempt_id, request_headers, request_body, request_bytes, response_headers, response_body,
				response_bytes)
			SELECT id, $16::text, $17::bytea, $18::integer, $19::text, $20::bytea, $21::integer FROM logged WHERE $16::text IS NOT NULL`,
			[
				DELIVERY_STATUS_OF[attempt.status], delivery.attempts + 1, attempt.nextRetry, attempt.statusCode, attempt.error, attempt.time,
				delivery.id, newId(), delivery.account_id, delivery.message_id, delivery.address, delivery.url, delivery.subscription_id,
				attempt.status, attempt.durationMs, ...exchange,
			],
		);
	}
}
