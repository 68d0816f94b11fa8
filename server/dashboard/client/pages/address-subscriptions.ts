import { enc, getJson, type SubscriptionFilter, type WebhookAttempt, type WebhookSubscription } from '../api.js';
import { formatTime, h, StatusLine, table } from '../dom.js';

/** How many of a subscription's latest attempts are shown beside it. */
const RECENT_ATTEMPTS = 3;

/**
 * The webhook subscriptions of one address (each n8n Mailroom Trigger adds one): where its mail goes, which of it, and
 * how the last deliveries went, so a user sees which workflows receive the address's mail.
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
			const [subscriptions, attempts] = await Promise.all([
				getJson<WebhookSubscription[]>(`/api/addresses/${enc(address)}/webhooks`),
				getJson<WebhookAttempt[]>(`/api/webhook-activity?${new URLSearchParams({ address, limit: '200' })}`),
			]);
			body.replaceChildren(subscriptionTable(subscriptions, attempts));
		} catch (error) {
			body.replaceChildren();
			status.error(error);
		}
	})();
	return section;
}

function subscriptionTable(subscriptions: WebhookSubscription[], attempts: WebhookAttempt[]): Node {
	if (subscriptions.length === 0) return h('p', { class: 'empty' }, 'No subscriptions.');
	return table(
		'Webhook subscriptions, oldest first',
		['Webhook URL', 'Filter', 'Created', 'Recent deliveries'],
		subscriptions.map((subscription) => [
			h('span', { class: 'url' }, subscription.url),
			filterInWords(subscription.filter),
			formatTime(subscription.created),
			recentAttempts(attempts.filter((attempt) => attempt.subscriptionId === subscription._id).slice(0, RECENT_ATTEMPTS)),
		]),
	);
}

function recentAttempts(attempts: WebhookAttempt[]): Node {
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
