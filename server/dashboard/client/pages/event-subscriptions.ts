import { enc, getJson, request, sendJson, type EventSubscription, type EventType, type WebhookAttempt } from '../api.js';
import { busy, formatTime, h, hidden, StatusLine, table } from '../dom.js';
import { clearFormErrors, showFormError } from '../field-errors.js';
import { recentAttempts } from './address-subscriptions.js';

/** How many of a subscription's latest deliveries are shown beside it. */
const RECENT_ATTEMPTS = 3;

/** The event types POST /api/event-webhooks takes, in the order of a message's life, with what each means. */
const EVENT_WORDS: Record<EventType, string> = {
	delivered: 'stored here, taken by the relay, or reported delivered',
	deferred: 'a remote server reported a delay (4.x.x)',
	bounced: 'a remote server reported a permanent failure (5.x.x)',
	complained: 'the recipient reported it as spam',
	failed: 'the relay refused it, or the retries ran out',
};
const EVENT_TYPES = Object.keys(EVENT_WORDS) as EventType[];

/**
 * The account's delivery event subscriptions (/api/event-webhooks): the URLs each change of a sent message's recipient
 * status is POSTed to, with their last deliveries; add one (URL and event types), delete one.
 */
export function eventSubscriptions(): Node {
	const status = new StatusLine();
	const list = h('div', { class: 'list' }, h('p', { class: 'hint' }, 'Loading…'));

	const url = h('input', {
		id: 'event-url',
		name: 'url',
		type: 'url',
		autocomplete: 'off',
		placeholder: 'https://n8n.example.com/webhook/…',
	});
	const boxes = EVENT_TYPES.map((type) => h('input', { id: `event-${type}`, type: 'checkbox', value: type }));
	// Named as the API names the field, so a refusal about `events` shows under the group.
	const events = h(
		'fieldset',
		{ id: 'event-types', name: 'events', class: 'event-types' },
		h('legend', {}, 'Events to send'),
		boxes.map((box, i) =>
			h(
				'div',
				{ class: 'check' },
				box,
				h('label', { for: box.id }, h('strong', {}, EVENT_TYPES[i]), h('span', { class: 'hint' }, `: ${EVENT_WORDS[EVENT_TYPES[i]]}`)),
			),
		),
	);
	const add = h('button', { type: 'submit' }, 'Add subscription');
	// novalidate: the server checks the URL (its SSRF policy too), and its message is the one shown under the field.
	const form = h(
		'form',
		{ novalidate: true },
		h('div', { class: 'field' }, h('label', { for: 'event-url' }, 'Webhook URL'), url),
		events,
		h('div', { class: 'actions' }, add),
	);

	const refresh = async () => {
		try {
			const subscriptions = await getJson<EventSubscription[]>('/api/event-webhooks');
			const attempts = await Promise.all(
				subscriptions.map((subscription) =>
					getJson<WebhookAttempt[]>(
						`/api/webhook-activity?${new URLSearchParams({ subscriptionId: subscription._id, limit: String(RECENT_ATTEMPTS) })}`,
					),
				),
			);
			list.replaceChildren(
				subscriptions.length === 0
					? h('p', { class: 'empty' }, 'No event subscriptions: your sent mail’s delivery events go to no URL.')
					: table(
							'Delivery event subscriptions, oldest first',
							['Webhook URL', 'Events', 'Created', 'Recent deliveries', 'Actions'],
							subscriptions.map((subscription, i) => [
								h('span', { class: 'url' }, subscription.url),
								subscription.events.join(', '),
								formatTime(subscription.created),
								recentAttempts(attempts[i]),
								deleteButton(subscription),
							]),
						),
			);
		} catch (error) {
			status.error(error);
		}
	};

	const deleteButton = (subscription: EventSubscription) => {
		const button = h('button', { type: 'button', class: 'danger' }, 'Delete', hidden(` the subscription of ${subscription.url}`));
		button.addEventListener('click', () => {
			if (!confirm(`Delete the subscription of ${subscription.url}? Events are no longer sent to it.`)) return;
			void busy(button, async () => {
				try {
					await request(`/api/event-webhooks/${enc(subscription._id)}`, { method: 'DELETE' });
					status.ok(`Deleted the subscription of ${subscription.url}.`);
				} catch (error) {
					status.error(error);
				}
				await refresh();
			});
		});
		return button;
	};

	form.addEventListener('submit', (event) => {
		event.preventDefault();
		void busy(add, async () => {
			try {
				const chosen = boxes.filter((box) => box.checked).map((box) => box.value);
				const created = await sendJson<EventSubscription>('POST', '/api/event-webhooks', { url: url.value.trim(), events: chosen });
				clearFormErrors(form);
				url.value = '';
				for (const box of boxes) box.checked = false;
				status.ok(`Subscribed ${created.url} to ${created.events.join(', ')}.`);
				await refresh();
			} catch (error) {
				showFormError(form, status, error);
			}
		});
	});

	void refresh();
	return h(
		'div',
		{},
		h(
			'p',
			{ class: 'hint' },
			'Each change of a recipient’s status of your sent mail, of the types chosen, is POSTed to the URL as JSON (a DeliveryEvent), signed with the webhook signing secret, retried while the receiver fails, and listed in ',
			h('a', { href: '#/activity' }, 'Recent Activity'),
			'. An n8n Mailroom Trigger on sent-email events adds one per workflow.',
		),
		form,
		status.element,
		list,
	);
}
