import { enc, getJson, request, type WebhookAttempt, type WebhookAttemptDetail } from '../api.js';
import { attemptView } from './attempt-view.js';
import { busy, formatTime, h, hidden, pageHeading, StatusLine, table } from '../dom.js';
import { refreshEvery } from '../poll.js';

const STATUSES = ['delivered', 'retrying', 'failed', 'refused'] as const;

/** Webhook deliveries of the account, newest first, refreshed while the page is open. */
/** `#/activity/<address>` opens it filtered for that address (the link under an address's webhook subscriptions). */
export function activityPage(root: HTMLElement, [filterAddress = '']: string[]): () => void {
	const status = new StatusLine();
	const list = h('div', { class: 'list' });
	const address = h('input', { id: 'activity-address', name: 'address', type: 'email', autocomplete: 'off', value: filterAddress });
	const state = h(
		'select',
		{ id: 'activity-status', name: 'status' },
		h('option', { value: '' }, 'All'),
		STATUSES.map((value) => h('option', { value }, value)),
	);
	const filters = h(
		'form',
		{ class: 'inline-form', 'aria-label': 'Filter deliveries' },
		h('div', { class: 'field' }, h('label', { for: 'activity-address' }, 'Address'), address),
		h('div', { class: 'field' }, h('label', { for: 'activity-status' }, 'Status'), state),
		h('button', { type: 'submit' }, 'Show'),
	);
	filters.addEventListener('submit', (event) => {
		event.preventDefault();
		void refresh();
	});

	let shown: string | undefined;
	const refresh = async () => {
		const query = new URLSearchParams({ limit: '100' });
		if (address.value.trim()) query.set('address', address.value.trim().toLowerCase());
		if (state.value) query.set('status', state.value);
		try {
			const deliveries = await getJson<WebhookAttempt[]>(`/api/webhook-activity?${query}`);
			const json = JSON.stringify(deliveries);
			// Redrawing only on change keeps keyboard focus on a Redeliver button between refreshes.
			if (json === shown) return;
			shown = json;
			list.replaceChildren(deliveryTable(deliveries));
		} catch (error) {
			status.error(error);
		}
	};

	const redeliver = (delivery: WebhookAttempt) => {
		const button = h(
			'button',
			{ type: 'button', class: 'secondary' },
			'Redeliver',
			hidden(` message ${delivery.messageId} to ${delivery.url}`),
		);
		button.addEventListener(
			'click',
			() =>
				void busy(button, async () => {
					try {
						await request(`/api/webhook-deliveries/${enc(delivery.deliveryId)}/redeliver`, { method: 'POST' });
						status.ok(`Redelivery of the message to ${delivery.url} is queued.`);
						await refresh();
					} catch (error) {
						status.error(error);
					}
				}),
		);
		return button;
	};

	const detail = h('section', { class: 'panel', id: 'attempt-detail', 'aria-labelledby': 'attempt-heading', hidden: true });
	const open = (delivery: WebhookAttempt) => {
		const button = h('button', { type: 'button', class: 'secondary' }, 'Open', hidden(` attempt ${delivery.attempt} to ${delivery.url}`));
		button.addEventListener(
			'click',
			() =>
				void busy(button, async () => {
					try {
						const attempt = await getJson<WebhookAttemptDetail>(`/api/webhook-attempts/${enc(delivery._id)}`);
						const heading = h('h2', { id: 'attempt-heading', tabindex: -1 }, `Delivery to ${delivery.url}`);
						const close = h('button', { type: 'button', class: 'secondary' }, 'Close');
						close.addEventListener('click', () => {
							detail.hidden = true;
							button.focus();
						});
						const actions = delivery.status === 'failed' || delivery.status === 'refused' ? [redeliver(delivery), close] : [close];
						detail.replaceChildren(heading, attemptView(attempt), h('p', { class: 'actions' }, actions));
						detail.hidden = false;
						heading.focus();
					} catch (error) {
						status.error(error);
					}
				}),
		);
		return button;
	};

	const deliveryTable = (deliveries: WebhookAttempt[]): Node => {
		if (deliveries.length === 0) return h('p', {}, 'No webhook deliveries yet.');
		return table(
			'Webhook deliveries, newest first',
			['Time', 'Address', 'Webhook URL', 'Status', 'Result', 'Attempt', 'Next retry', 'Actions'],
			deliveries.map((delivery) => [
				formatTime(delivery.time),
				delivery.address,
				h('span', { class: 'url' }, delivery.url),
				h('span', { class: `badge ${delivery.status}` }, delivery.status),
				result(delivery),
				String(delivery.attempt),
				delivery.nextRetry ? formatTime(delivery.nextRetry) : '—',
				h(
					'span',
					{ class: 'actions' },
					open(delivery),
					(delivery.status === 'failed' || delivery.status === 'refused') && redeliver(delivery),
				),
			]),
		);
	};

	root.append(
		pageHeading('Recent Activity'),
		h(
			'p',
			{ class: 'hint' },
			'Webhook deliveries of your addresses, newest first. A failed attempt is retried on a schedule; Redeliver sends a failed delivery again now.',
		),
		filters,
		status.element,
		detail,
		list,
	);
	return refreshEvery(refresh);
}

function result(delivery: WebhookAttempt): string {
	const code = delivery.statusCode === null ? '' : `HTTP ${delivery.statusCode}`;
	const error = delivery.error === code ? '' : (delivery.error ?? '');
	return [code, error, `${delivery.durationMs} ms`].filter(Boolean).join(' · ');
}
