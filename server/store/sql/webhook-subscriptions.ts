import type { SubscriptionFilter, WebhookSubscription } from '../../schemas/webhook';
import type { WebhookSubscriptionStore } from '../store';
import { newId, nowIso } from '../ids';
import { storedFilter, toSubscription, type SubscriptionRow } from '../subscription-records';
import type { SqlDb } from './sql-db';

/** Subscriptions in the order they are listed in: oldest first. */
export const SUBSCRIPTION_ORDER = 'ORDER BY created, id';

/**
 * The webhook subscriptions of addresses: beside an address's one `webhook`, any number of consumers of its mail, each
 * with an optional filter. Deleting (releasing) the address deletes them (ON DELETE CASCADE).
 */
export class SqlWebhookSubscriptionStore implements WebhookSubscriptionStore {
	constructor(private readonly db: SqlDb) {}

	async create(address: string, url: string, filter?: SubscriptionFilter): Promise<WebhookSubscription> {
		const row: SubscriptionRow = { id: newId(), address, url, filter_json: storedFilter(filter), created: nowIso() };
		await this.db.run('INSERT INTO webhook_subscriptions (id, address, url, filter_json, created) VALUES ($1, $2, $3, $4, $5)', [
			row.id,
			row.address,
			row.url,
			row.filter_json,
			row.created,
		]);
		return toSubscription(row);
	}

	async list(address: string): Promise<WebhookSubscription[]> {
		const rows = await this.db.rows<SubscriptionRow>(`SELECT * FROM webhook_subscriptions WHERE address = $1 ${SUBSCRIPTION_ORDER}`, [
			address,
		]);
		return rows.map(toSubscription);
	}

	async count(address: string): Promise<number> {
		return (await this.db.row<{ n: number }>('SELECT count(*) AS n FROM webhook_subscriptions WHERE address = $1', [address]))!.n;
	}

	async remove(address: string, id: string): Promise<WebhookSubscription | undefined> {
		const row = await this.db.row<SubscriptionRow>('DELETE FROM webhook_subscriptions WHERE id = $1 AND address = $2 RETURNING *', [
			id,
			address,
		]);
		return row && toSubscription(row);
	}
}
