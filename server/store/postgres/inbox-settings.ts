import type { InboxSettingsStore } from '../store';
import { InboxSettings } from '../inbox-settings';
import { SETTINGS_COLUMNS, toAddressSettings, type SettingsRow } from '../address-records';
import { toSubscription, type SubscriptionRow } from '../subscription-records';
import { prepared, type Db } from './database';
import { SUBSCRIPTION_ORDER } from './webhook-subscriptions';

interface RoleRow extends SettingsRow {
	role: 'own' | 'catchAll';
}

/** The settings of the address itself and of its domain's catch-all address. */
const SETTINGS = prepared(
	'inbox-settings',
	`(SELECT 'own' AS role, ${SETTINGS_COLUMNS} FROM addresses WHERE email = $1)
	UNION ALL (SELECT 'catchAll' AS role, ${SETTINGS_COLUMNS} FROM addresses WHERE catch_all = $2 LIMIT 1)`,
);
const SUBSCRIPTIONS = prepared(
	'inbox-subscriptions',
	`SELECT * FROM webhook_subscriptions WHERE address = ANY($1::text[]) ${SUBSCRIPTION_ORDER}`,
);

/** Read for every message stored: public inboxes, the most, cost one query; reserved ones a second for their subscriptions. */
export class PostgresInboxSettingsStore implements InboxSettingsStore {
	constructor(private readonly db: Db) {}

	async of(inbox: string, domain: string): Promise<InboxSettings> {
		const rows = await this.db.rows<RoleRow>(SETTINGS, [inbox, domain]);
		const subscriptions = rows.length ? await this.db.rows<SubscriptionRow>(SUBSCRIPTIONS, [rows.map((row) => row.email)]) : [];
		const settingsOf = (role: RoleRow['role']) => {
			const row = rows.find((candidate) => candidate.role === role);
			return row && toAddressSettings(row, subscriptions.filter((s) => s.address === row.email).map(toSubscription));
		};
		return new InboxSettings(settingsOf('own'), settingsOf('catchAll'));
	}
}
