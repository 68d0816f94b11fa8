import type { Statement } from 'better-sqlite3';
import type { Db } from './database';
import type { WebhookSubscription } from '../schemas/webhook';
import { WebhookSubscriptionStore } from './webhook-subscriptions';

/** The forwarding settings of one reserved address that act on its mail. */
export interface AddressSettings {
	email: string;
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
	email: string;
	owner: string;
	webhook: string | null;
	webhook_slack: string | null;
	webhook_slack_to_from: number | null;
	forward: string | null;
	enablews: number;
}

const COLUMNS = 'email, owner, webhook, webhook_slack, webhook_slack_to_from, forward, enablews';

/** A URL or address that is set, or a flag that is true. */
const isOn = (value: string | boolean | null) => value !== null && value !== false;

const toSettings = (row: SettingsRow): AddressSettings => ({
	email: row.email,
	owner: row.owner,
	webhook: row.webhook,
	webhookSlack: row.webhook_slack,
	webhookSlackToFrom: row.webhook_slack_to_from === 1,
	forward: row.forward,
	enablews: row.enablews === 1,
});

/**
 * The settings that act on the mail of one inbox. One rule for every setting (webhook, Slack webhook, forward, websocket,
 * subscriptions): the address's own when it has it on, else that of its domain's catch-all address; and a catch-all's
 * never acts on an address another account holds.
 */
export class InboxSettings {
	constructor(
		private readonly own: AddressSettings | undefined,
		private readonly catchAll: AddressSettings | undefined,
		private readonly subscriptionsOf: (address: string) => WebhookSubscription[],
	) {}

	/** The webhook subscriptions that get the inbox's mail: the address's own when it has any, else its catch-all's. */
	subscriptions(): EffectiveSetting<WebhookSubscription[]> | undefined {
		const { own, catchAll } = this;
		const owned = own && this.subscriptionsOf(own.email);
		if (own && owned?.length) return { value: owned, from: own };
		if (!catchAll || (own && own.owner !== catchAll.owner)) return undefined;
		const inherited = this.subscriptionsOf(catchAll.email);
		return inherited.length ? { value: inherited, from: catchAll } : undefined;
	}

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
	private readonly subscriptions: WebhookSubscriptionStore;

	constructor(db: Db) {
		this.subscriptions = new WebhookSubscriptionStore(db);
		this.own = db.prepare(`SELECT ${COLUMNS} FROM addresses WHERE email = ?`);
		this.catchAll = db.prepare(`SELECT ${COLUMNS} FROM addresses WHERE catch_all = ? LIMIT 1`);
	}

	of(inbox: string, domain: string): InboxSettings {
		const own = this.own.get(inbox) as SettingsRow | undefined;
		const catchAll = this.catchAll.get(domain) as SettingsRow | undefined;
		return new InboxSettings(own && toSettings(own), catchAll && toSettings(catchAll), (address) => this.subscriptions.list(address));
	}
}
