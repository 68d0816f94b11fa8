import type { InboxSettingsStore } from '../store';
import { InboxSettings } from '../inbox-settings';
import { SETTINGS_COLUMNS, toAddressSettings, type SettingsRow } from '../address-records';
import { toSubscription, type SubscriptionRow } from '../subscription-records';
import { SUBSCRIPTION_ORDER } from './webhook-subscriptions';
import { prepared, type SqlDb } from './sql-db';

interface RoleRow extends SettingsRow {
	role: 'own' | 'catchAll';
}

/** The settings of the address itself and of its domain's catch-all address. */
const SETTINGS = prepared(
	'inbox-settings',
	`SELECT * FROM (SELECT 'own' AS role, ${SETTINGS_COLUMNS} FROM addresses WHERE email = $1) own
	UNION ALL SELECT * FROM (SELECT 'catchAll' AS role, ${SETTINGS_COLUMNS} FROM addresses WHERE catch_all = $2 LIMIT 1) catch_all`,
);

/** Read for every message stored: public inboxes, the most, cost one query; reserved ones a second for their subscriptions. */
export class SqlInboxSettingsStore implements InboxSettingsStore {
	private readonly subscriptions: string;

	constructor(private readonly db: SqlDb) {
		this.subscriptions = `SELECT * FROM webhook_subscriptions WHERE ${db.dialect.inList('address', '$1')} ${SUBSCRIPTION_ORDER}`;
	}

	async of(inbox: string, domain: string): Promise<InboxSettings> {
		const rows = await this.db.rows<RoleRow>(SETTINGS, [inbox, domain]);
		const addresses = rows.map((row) => row.email);
		const subscriptions = rows.length ? await this.db.rows<SubscriptionRow>(this.subscriptions, [this.db.dialect.list(addresses)]) : [];
		const settingsOf = (role: RoleRow['role']) => {
			const row = rows.find((candidate) => candidate.role === role);
			return row && toAddressSettings(row, subscriptions.filter((s) => s.address === row.email).map(toSubscription));
		};
		return new InboxSettings(settingsOf('own'), settingsOf('catchAll'));
	}
}
