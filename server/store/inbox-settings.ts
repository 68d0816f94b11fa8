import type { Statement } from 'better-sqlite3';
import type { Db } from './database';

/** The forwarding settings of one reserved address that act on its mail. */
export interface AddressSettings {
	/** The account that holds the address: its secret signs the address's webhooks, its credits pay for forwards. */
	owner: string;
	webhook: string | null;
	webhookSlack: string | null;
	webhookSlackToFrom: boolean;
	forward: string | null;
	enablews: boolean;
}

/** The settings that act on an inbox's mail. */
type SettingName = 'webhook' | 'webhookSlack' | 'forward' | 'enablews';

/** A setting in effect for an inbox, and the address it comes from. */
export interface EffectiveSetting<T> {
	value: T;
	from: AddressSettings;
}

interface SettingsRow {
	owner: string;
	webhook: string | null;
	webhook_slack: string | null;
	webhook_slack_to_from: number | null;
	forward: string | null;
	enablews: number;
}

const COLUMNS = 'owner, webhook, webhook_slack, webhook_slack_to_from, forward, enablews';

/** A URL or address that is set, or a flag that is true. */
const isOn = (value: string | boolean | null) => value !== null && value !== false;

const toSettings = (row: SettingsRow): AddressSettings => ({
	owner: row.owner,
	webhook: row.webhook,
	webhookSlack: row.webhook_slack,
	webhookSlackToFrom: row.webhook_slack_to_from === 1,
	forward: row.forward,
	enablews: row.enablews === 1,
});

/**
 * The settings that act on the mail of one inbox. One rule for every setting (webhook, Slack webhook, forward, websocket):
 * the address's own when it has it on, else that of its domain's catch-all address; and a catch-all's never acts on an
 * address another account holds.
 */
export class InboxSettings {
	constructor(
		private readonly own: AddressSettings | undefined,
		private readonly catchAll: AddressSettings | undefined,
	) {}

	get<K extends SettingName>(name: K): EffectiveSetting<NonNullable<AddressSettings[K]>> | undefined {
		const { own, catchAll } = this;
		if (own && isOn(own[name])) return { value: own[name], from: own };
		if (!catchAll || (own && own.owner !== catchAll.owner) || !isOn(catchAll[name])) return undefined;
		return { value: catchAll[name], from: catchAll };
	}
}

/** Reads the settings of inboxes (see InboxSettings). */
export class InboxSettingsStore {
	private readonly own: Statement;
	private readonly catchAll: Statement;

	constructor(db: Db) {
		this.own = db.prepare(`SELECT ${COLUMNS} FROM addresses WHERE email = ?`);
		this.catchAll = db.prepare(`SELECT ${COLUMNS} FROM addresses WHERE catch_all = ? LIMIT 1`);
	}

	of(inbox: string, domain: string): InboxSettings {
		const own = this.own.get(inbox) as SettingsRow | undefined;
		const catchAll = this.catchAll.get(domain) as SettingsRow | undefined;
		return new InboxSettings(own && toSettings(own), catchAll && toSettings(catchAll));
	}
}
