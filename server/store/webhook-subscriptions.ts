import type { Statement } from 'better-sqlite3';
import type { Db } from './database';
import type { SubscriptionFilter, WebhookSubscription } from '../schemas/webhook';
import { newId, nowIso } from './ids';

interface SubscriptionRow {
	id: string;
	address: string;
	url: string;
	filter_json: string | null;
	created: string;
}

const toSubscription = (row: SubscriptionRow): WebhookSubscription => ({
	_id: row.id,
	address: row.address,
	url: row.url,
	filter: row.filter_json === null ? null : (JSON.parse(row.filter_json) as SubscriptionFilter),
	created: row.created,
});

/** A filter with no part set matches every message: it is kept as none. */
const storedFilter = (filter: SubscriptionFilter | undefined) =>
	filter && Object.values(filter).some((part) => part !== undefined) ? JSON.stringify(filter) : null;

/**
 * The webhook subscriptions of addresses: beside an address's one `webhook`, any number of consumers of its mail, each
 * with an optional filter. Deleting (releasing) the address deletes them (ON DELETE CASCADE).
 */
export class WebhookSubscriptionStore {
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

	create(address: string, url: string, filter?: SubscriptionFilter): WebhookSubscription {
		const row: SubscriptionRow = { id: newId(), address, url, filter_json: storedFilter(filter), created: nowIso() };
		this.insert.run(row.id, row.address, row.url, row.filter_json, row.created);
		return toSubscription(row);
	}

	/** The subscriptions of an address, oldest first. */
	list(address: string): WebhookSubscription[] {
		return (this.selectOfAddress.all(address) as SubscriptionRow[]).map(toSubscription);
	}

	count(address: string): number {
		return this.countOfAddress.get(address) as number;
	}

	/** Deletes one subscription of an address; returns it, or undefined when the address has none with that id. */
	remove(address: string, id: string): WebhookSubscription | undefined {
		const row = this.selectOne.get(id, address) as SubscriptionRow | undefined;
		if (row) this.deleteOne.run(id, address);
		return row && toSubscription(row);
	}
}
