import type { AttemptStatus, DeliveryStatus, WebhookAttempt, WebhookDelivery } from '../schemas/webhook';
import type { DeliveryRow } from './store';

/** A row of webhook_attempts, as either engine reads it. */
export interface AttemptRow {
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

/** A delivery as the API shows it. */
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

/** An attempt as Recent Activity shows it. */
export const toAttemptView = (row: AttemptRow): WebhookAttempt => ({
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

/** The status a delivery takes after an attempt that came to this. */
export const DELIVERY_STATUS_OF: Record<AttemptStatus, DeliveryStatus> = {
	delivered: 'delivered',
	retrying: 'pending',
	failed: 'failed',
	refused: 'refused',
};
