import type { Statement } from 'better-sqlite3';
import type { Db } from './database';
import type { SubscriptionFilter, WebhookSubscription } from '../../schemas/webhook';
import type { WebhookSubscriptionStore } from '../store';
import { newId, nowIso } from '../ids';
import { storedFilter, toSubscription, type SubscriptionRow } from '../subscription-records';

/**
 * The webhook subscriptions of addresses: beside an address's one `webhook`, any number of consumers of its mail, each
 * with an optional filter. Deleting (releasing) the address deletes them (ON DELETE CASCADE).
 */
export class SqliteWebhookSubscriptionStore implements WebhookSubscriptionStore {
	private readonly insert: Statement;
	private readonly selectOfAddress: Statement;
	private readonly selectOne: Statement;
	private readonly deleteOne: Statement;
	private readonly countOfAddress: Statement;

	constructor(db: Db) {
		this.insert = db.prepare('INSERT INTO webhook_subscriptions (id, address, url, filter_json, created) VALUES (?, ?, ?, ?, ?)');
		this.selectOfAddress = db.prepare('SELECT * FROM webhook_subscriptions WHERE address = ? ORDER BY created, id');
		this.selectOne = db.prepare('SELECT * FROM webhook_subscriptions WHERE id = ? AND address = ?');
		this.deleteOne = db.prepare('DELETE FROM webhook_subscriptions WHERE id = ? AND address = ?');
		this.countOfAddress = db.prepare('SELECT count(*) FROM webhook_subscriptions WHERE address = ?').pluck();
	}

	async create(address: string, url: string, filter?: SubscriptionFilter): Promise<WebhookSubscription> {
		const row: SubscriptionRow = { id: newId(), address, url, filter_json: storedFilter(filter), created: nowIso() };
		this.insert.run(row.id, row.address, row.url, row.filter_json, row.created);
		return toSubscription(row);
	}

	async list(address: string): Promise<WebhookSubscription[]> {
		return this.listNow(address);
	}

	async count(address: string): Promise<number> {
		return this.countOfAddress.get(address) as number;
	}

	async remove(address: string, id: string): Promise<WebhookSubscription | undefined> {
		const row = this.selectOne.get(id, address) as SubscriptionRow | undefined;
		if (row) this.deleteOne.run(id, address);
		return row && toSubscription(row);
	}

	/** For InboxSettings, read with the settings. */
	listNow(address: string): WebhookSubscription[] {
		return (this.selectOfAddress.all(address) as SubscriptionRow[]).map(toSubscription);
	}
}
