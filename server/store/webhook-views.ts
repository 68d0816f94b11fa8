import type { AttemptStatus, DeliveryStatus, WebhookAttempt, WebhookDelivery } from '../schemas/webhook';
import type { AttemptExchange, DeliveryRow, StoredAttempt } from './store';

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

/** The columns of webhook_exchanges, as either engine reads them (LEFT JOINed to their attempt: all null without one). */
export interface ExchangeColumns {
	request_headers: string | null;
	request_body: Buffer | null;
	request_bytes: number | null;
	response_headers: string | null;
	response_body: Buffer | null;
	response_bytes: number | null;
}

/** An attempt row joined with its exchange's columns and its account. */
export type StoredAttemptRow = AttemptRow & ExchangeColumns & { account_id: string };

/** The values of a webhook_exchanges row, in its columns' order after attempt_id. */
export function exchangeValues({ request, response }: AttemptExchange): unknown[] {
	return [
		JSON.stringify(request.headers),
		request.body.head,
		request.body.bytes,
		response && JSON.stringify(response.headers),
		response?.body.head ?? null,
		response?.body.bytes ?? null,
	];
}

/** Header lines as exchangeValues stored them: a JSON list of [name, value] pairs. */
const headerPairs = (json: string) => JSON.parse(json) as [string, string][];

export function toStoredAttempt(row: StoredAttemptRow): StoredAttempt {
	const exchange: AttemptExchange | null =
		row.request_headers === null
			? null
			: {
					request: { headers: headerPairs(row.request_headers), body: { head: row.request_body!, bytes: row.request_bytes! } },
					response:
						row.response_headers === null
							? null
							: { headers: headerPairs(row.response_headers), body: { head: row.response_body!, bytes: row.response_bytes! } },
				};
	return { accountId: row.account_id, attempt: toAttemptView(row), exchange };
}
