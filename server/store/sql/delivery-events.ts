import type { OutgoingRecipient, OutgoingRecord } from '../../schemas/outgoing';
import type { DeliveryEvent, EventSubscription, EventType } from '../../schemas/delivery-event';
import type { DeliveryEventStore, RecordedEvent } from '../store';
import { newId, nowIso } from '../ids';
import type { SqlDb } from './sql-db';

interface EventRow {
	id: string;
	account_id: string;
	outgoing_id: string;
	from_address: string;
	subject: string;
	recipient: string;
	type: EventType;
	status_code: string | null;
	diagnostic: string | null;
	reporting_mta: string | null;
	bounce_message_id: string | null;
	time: string;
}

interface SubscriptionRow {
	id: string;
	account_id: string;
	url: string;
	events_json: string;
	created: string;
}

const toEvent = (row: EventRow): DeliveryEvent => ({
	_id: row.id,
	type: row.type,
	sentMessageId: row.outgoing_id,
	from: row.from_address,
	subject: row.subject,
	recipient: row.recipient,
	statusCode: row.status_code,
	diagnostic: row.diagnostic,
	reportingMta: row.reporting_mta,
	bounceMessageId: row.bounce_message_id,
	time: row.time,
});

const toSubscription = (row: SubscriptionRow): EventSubscription => ({
	_id: row.id,
	url: row.url,
	events: JSON.parse(row.events_json) as EventType[],
	created: row.created,
});

/** Delivery events and the account-level subscriptions to them (see DeliveryEventStore). */
export class SqlDeliveryEventStore implements DeliveryEventStore {
	constructor(private readonly db: SqlDb) {}

	async subscribe(accountId: string, url: string, events: EventType[]): Promise<EventSubscription> {
		const row: SubscriptionRow = { id: newId(), account_id: accountId, url, events_json: JSON.stringify(events), created: nowIso() };
		await this.db.run('INSERT INTO event_subscriptions (id, account_id, url, events_json, created) VALUES ($1, $2, $3, $4, $5)', [
			row.id,
			row.account_id,
			row.url,
			row.events_json,
			row.created,
		]);
		return toSubscription(row);
	}

	async subscriptions(accountId: string): Promise<EventSubscription[]> {
		const rows = await this.db.rows<SubscriptionRow>('SELECT * FROM event_subscriptions WHERE account_id = $1 ORDER BY created, id', [
			accountId,
		]);
		return rows.map(toSubscription);
	}

	async unsubscribe(accountId: string, id: string): Promise<EventSubscription | undefined> {
		const row = await this.db.row<SubscriptionRow>('DELETE FROM event_subscriptions WHERE id = $1 AND account_id = $2 RETURNING *', [
			id,
			accountId,
		]);
		return row && toSubscription(row);
	}

	async get(id: string): Promise<DeliveryEvent | undefined> {
		const row = await this.db.row<EventRow>('SELECT * FROM delivery_events WHERE id = $1', [id]);
		return row && toEvent(row);
	}

	async recorded(ids: string[]): Promise<RecordedEvent[]> {
		if (ids.length === 0) return [];
		const rows = await this.db.rows<EventRow>(`SELECT * FROM delivery_events WHERE ${this.db.dialect.inList('id', '$1')}`, [
			this.db.dialect.list(ids),
		]);
		const byId = new Map(rows.map((row) => [row.id, { accountId: row.account_id, event: toEvent(row) }]));
		return ids.flatMap((id) => byId.get(id) ?? []);
	}

	prune(before: string): Promise<number> {
		return this.db.run('DELETE FROM delivery_events WHERE time < $1', [before]);
	}
}

/** What a report adds to an event beyond the recipient's new state. */
export interface EventDetail {
	reportingMta?: string | null;
	bounceMessageId?: string | null;
}

/**
 * Records an event for each recipient whose status changed from `before` to `after` (a recipient that is still queued makes
 * none), and a webhook delivery of it for each of the account's subscriptions that wants its type: in the transaction `tx`
 * that makes the change, so no change goes without its event, nor an event without its change.
 */
export async function recordEvents(
	tx: SqlDb,
	accountId: string,
	before: OutgoingRecord,
	after: OutgoingRecipient[],
	detail: EventDetail = {},
): Promise<RecordedEvent[]> {
	const events: DeliveryEvent[] = [];
	const time = nowIso();
	for (const [i, recipient] of after.entries()) {
		const previous = before.recipients[i];
		if (recipient.status === 'queued' || previous?.status === recipient.status) continue;
		events.push({
			_id: newId(),
			type: recipient.status,
			sentMessageId: before._id,
			from: before.from,
			subject: before.subject,
			recipient: recipient.address,
			statusCode: recipient.statusCode ?? null,
			// A refusal by the relay is in error; a report's words in diagnostic.
			diagnostic: recipient.diagnostic ?? recipient.error ?? null,
			reportingMta: detail.reportingMta ?? null,
			bounceMessageId: detail.bounceMessageId ?? null,
			time,
		});
	}
	if (events.length === 0) return [];
	const subscriptions = await tx.rows<SubscriptionRow>('SELECT * FROM event_subscriptions WHERE account_id = $1 ORDER BY created, id', [
		accountId,
	]);
	const now = Date.now();
	for (const event of events) {
		await tx.run(
			`INSERT INTO delivery_events (id, account_id, outgoing_id, from_address, subject, recipient, type, status_code, diagnostic,
				reporting_mta, bounce_message_id, time) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
			// prettier-ignore
			[
				event._id, accountId, event.sentMessageId, event.from, event.subject, event.recipient, event.type, event.statusCode,
				event.diagnostic, event.reportingMta, event.bounceMessageId, event.time,
			],
		);
		for (const subscription of subscriptions.map(toSubscription).filter((s) => s.events.includes(event.type))) {
			await tx.run(
				`INSERT INTO webhook_deliveries (id, message_id, account_id, address, url, kind, subscription_id, event_id, status, next_attempt,
					created, updated) VALUES ($1, $2, $3, $4, $5, 'webhook', $6, $7, 'pending', $8, $8, $8)`,
				[newId(), event.sentMessageId, accountId, event.recipient, subscription.url, subscription._id, event._id, now],
			);
		}
	}
	return events.map((event) => ({ accountId, event }));
}
