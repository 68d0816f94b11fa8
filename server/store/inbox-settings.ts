import type { WebhookSubscription } from '../schemas/webhook';

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
	/** The address's webhook subscriptions, oldest first. */
	subscriptions: WebhookSubscription[];
}

/** The settings that act on an inbox's mail. */
type SettingName = 'webhook' | 'webhookSlack' | 'forward' | 'enablews';

/** A setting in effect for an inbox, and the address it comes from. */
export interface EffectiveSetting<T> {
	value: T;
	from: AddressSettings;
}

/** A URL or address that is set, or a flag that is true. */
const isOn = (value: string | boolean | null) => value !== null && value !== false;

/**
 * The settings that act on the mail of one inbox. One rule for every setting (webhook, Slack webhook, forward, websocket,
 * subscriptions): the address's own when it has it on, else that of its domain's catch-all address; and a catch-all's
 * never acts on an address another account holds.
 */
export class InboxSettings {
	/** `own` and `catchAll` are the two addresses whose settings may act on the inbox, each with its webhook subscriptions. */
	constructor(
		private readonly own: AddressSettings | undefined,
		private readonly catchAll: AddressSettings | undefined,
	) {}

	/** The webhook subscriptions that get the inbox's mail: the address's own when it has any, else its catch-all's. */
	subscriptions(): EffectiveSetting<WebhookSubscription[]> | undefined {
		const { own, catchAll } = this;
		if (own?.subscriptions.length) return { value: own.subscriptions, from: own };
		if (!catchAll || (own && own.owner !== catchAll.owner)) return undefined;
		return catchAll.subscriptions.length ? { value: catchAll.subscriptions, from: catchAll } : undefined;
	}

	get<K extends SettingName>(name: K): EffectiveSetting<NonNullable<AddressSettings[K]>> | undefined {
		const { own, catchAll } = this;
		if (own && isOn(own[name])) return { value: own[name], from: own };
		if (!catchAll || (own && own.owner !== catchAll.owner) || !isOn(catchAll[name])) return undefined;
		return { value: catchAll[name], from: catchAll };
	}
}
