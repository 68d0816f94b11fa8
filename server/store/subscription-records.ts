import type { SubscriptionFilter, WebhookSubscription } from '../schemas/webhook';

/** A row of webhook_subscriptions, as either engine reads it. */
export interface SubscriptionRow {
	id: string;
	address: string;
	url: string;
	filter_json: string | null;
	created: string;
}

export const toSubscription = (row: SubscriptionRow): WebhookSubscription => ({
	_id: row.id,
	address: row.address,
	url: row.url,
	filter: row.filter_json === null ? null : (JSON.parse(row.filter_json) as SubscriptionFilter),
	created: row.created,
});

/** A filter with no part set matches every message: it is kept as none. */
export const storedFilter = (filter: SubscriptionFilter | undefined) =>
	filter && Object.values(filter).some((part) => part !== undefined) ? JSON.stringify(filter) : null;
