import {
	enc,
	getJson,
	type Domain,
	type ForwardingRecord,
	type SubscriptionFilter,
	type WebhookAttempt,
	type WebhookSubscription,
} from '../api.js';
import { formatTime, h, StatusLine, table } from '../dom.js';

/** How many of a subscription's latest attempts are shown beside it. */
const RECENT_ATTEMPTS = 3;

/**
 * The catch-all address of `address`'s domain when it is one of the account's addresses other than `address` itself: its
 * subscriptions receive the mail of the domain's addresses that have none of their own.
 */
export function catchAllOf(address: string, domains: Domain[], addresses: string[]): string | undefined {
	const domain = domains.find((candidate) => candidate._id === address.slice(address.lastIndexOf('@') + 1));
	const catchAll = domain?.catchAll ?? undefined;
	return catchAll && catchAll !== address && addresses.includes(catchAll) ? catchAll : undefined;
}

/** The subscriptions that receive an address's mail: its own when it has any, else its catch-all's (as the server picks them). */
interface Receiving {
	own: WebhookSubscription[];
	catchAll?: { address: string; subscriptions: WebhookSubscription[] };
}

async function receivingSubscriptions(address: string): Promise<Receiving> {
	const [own, domains, addresses] = await Promise.all([
		getJson<WebhookSubscription[]>(`/api/addresses/${enc(address)}/webhooks`),
		getJson<Domain[]>('/api/domains'),
		getJson<ForwardingRecord[]>('/api/addresses'),
	]);
	const catchAll = catchAllOf(
		address,
		domains,
		addresses.map((record) => record._id),
	);
	if (!catchAll) return { own };
	return {
		own,
		catchAll: { address: catchAll, subscriptions: await getJson<WebhookSubscription[]>(`/api/addresses/${enc(catchAll)}/webhooks`) },
	};
}

/**
 * The webhook subscriptions that receive one address's mail (each n8n Mailroom Trigger adds one): its own, or its domain's
 * catch-all's (marked so) when it has none; where the mail goes, which of it, and how the last deliveries went, so a user
 * sees which workflows receive the address's mail.
 */
export function subscriptionsSection(address: string): HTMLElement {
	const status = new StatusLine();
	const body = h('div', {}, h('p', {}, 'Loading subscriptions…'));
	const section = h(
		'section',
		{ class: 'panel', id: 'subscriptions-panel', 'aria-labelledby': 'subscriptions-heading' },
		h('h2', { id: 'subscriptions-heading' }, `Webhook subscriptions of ${address}`),
		h(
			'p',
			{ class: 'hint' },
			'Besides its own webhook, each URL here receives the mail of this address that passes its filter; an n8n Mailroom Trigger adds one per workflow.',
		),
		body,
		h('p', {}, h('a', { href: `#/activity/${enc(address)}` }, `All deliveries of ${address} in Recent Activity`)),
		status.element,
	);
	void (async () => {
		try {
			const [receiving, attempts] = await Promise.all([
				receivingSubscriptions(address),
				getJson<WebhookAttempt[]>(`/api/webhook-activity?${new URLSearchParams({ address, limit: '200' })}`),
			]);
			body.replaceChildren(...subscriptionTables(receiving, attempts));
		} catch (error) {
			body.replaceChildren();
			status.error(error);
		}
	})();
	return section;
}

/** The table of the subscriptions that receive the mail, and a note when they are the catch-all's, or when its are set aside. */
function subscriptionTables({ own, catchAll }: Receiving, attempts: WebhookAttempt[]): Node[] {
	const inherited = own.length === 0 && catchAll?.subscriptions.length ? catchAll : undefined;
	const receiving = inherited ? inherited.subscriptions : own;
	if (receiving.length === 0) return [h('p', { class: 'empty' }, 'No subscriptions.')];
	const source = inherited ? `catch-all ${inherited.address}` : 'this address';
	const rows = table(
		'Webhook subscriptions that receive this address’s mail, oldest first',
		['Webhook URL', 'Subscribed on', 'Filter', 'Created', 'Recent deliveries'],
		receiving.map((subscription) => [
			h('span', { class: 'url' }, subscription.url),
			source,
			filterInWords(subscription.filter),
			formatTime(subscription.created),
			recentAttempts(attempts.filter((attempt) => attempt.subscriptionId === subscription._id).slice(0, RECENT_ATTEMPTS)),
		]),
	);
	if (inherited)
		return [
			h(
				'p',
				{ class: 'hint' },
				`This address has no subscriptions of its own: those of its domain’s catch-all ${inherited.address} receive its mail.`,
			),
			rows,
		];
	const setAside = catchAll?.subscriptions.length ?? 0;
	if (setAside === 0) return [rows];
	const count = setAside === 1 ? '1 subscription that does' : `${setAside} subscriptions that do`;
	return [
		rows,
		h(
			'p',
			{ class: 'hint' },
			`The catch-all ${catchAll!.address} has ${count} not receive this address’s mail: an address’s own subscriptions replace its catch-all’s.`,
		),
	];
}

/** The latest attempts of one subscription, newest first: outcome, HTTP status or error, and when. */
export function recentAttempts(attempts: WebhookAttempt[]): Node {
	if (attempts.length === 0) return h('span', {}, 'None yet');
	return h(
		'ul',
		{ class: 'plain' },
		attempts.map((attempt) =>
			h(
				'li',
				{},
				h('span', { class: `badge ${attempt.status}` }, attempt.status),
				' ',
				[attempt.statusCode === null ? (attempt.error ?? 'no response') : `HTTP ${attempt.statusCode}`, formatTime(attempt.time)].join(
					' · ',
				),
			),
		),
	);
}

/** A filter as a sentence: "from contains billing; has attachments; authenticated senders only". */
export function filterInWords(filter: SubscriptionFilter | null): string {
	const parts: string[] = [];
	if (filter?.from) parts.push(`from contains ${filter.from}`);
	if (filter?.subject) parts.push(`subject contains ${filter.subject}`);
	if (filter?.hasAttachments !== undefined) parts.push(filter.hasAttachments ? 'has attachments' : 'has no attachments');
	if (filter?.authenticated !== undefined) parts.push(filter.authenticated ? 'authenticated senders only' : 'unauthenticated senders only');
	return parts.length === 0 ? 'Every message' : parts.join('; ');
}
