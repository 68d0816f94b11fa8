import type { Statement } from 'better-sqlite3';
import type { Db } from './database';
import type { InboxSettingsStore } from '../store';
import { InboxSettings } from '../inbox-settings';
import { SETTINGS_COLUMNS, toAddressSettings, type SettingsRow } from '../address-records';
import { SqliteWebhookSubscriptionStore } from './webhook-subscriptions';

/** Reads the settings of inboxes (see InboxSettings). */
export class SqliteInboxSettingsStore implements InboxSettingsStore {
	private readonly own: Statement;
	private readonly catchAll: Statement;
	private readonly subscriptions: SqliteWebhookSubscriptionStore;

	constructor(db: Db) {
		this.subscriptions = new SqliteWebhookSubscriptionStore(db);
		this.own = db.prepare(`SELECT ${SETTINGS_COLUMNS} FROM addresses WHERE email = ?`);
		this.catchAll = db.prepare(`SELECT ${SETTINGS_COLUMNS} FROM addresses WHERE catch_all = ? LIMIT 1`);
	}

	async of(inbox: string, domain: string): Promise<InboxSettings> {
		const settings = (row: SettingsRow | undefined) => row && toAddressSettings(row, this.subscriptions.listNow(row.email));
		return new InboxSettings(
			settings(this.own.get(inbox) as SettingsRow | undefined),
			settings(this.catchAll.get(domain) as SettingsRow | undefined),
		);
	}
}
