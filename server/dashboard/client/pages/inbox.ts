import { senderMark } from '../sender-mark.js';
import { enc, formatAddresses, getJson, type MessageRecord } from '../api.js';
import { listenForMail } from '../incoming-socket.js';
import { POLL_MS, refreshEvery } from '../poll.js';
import { formatTime, h, pageHeading, StatusLine, table } from '../dom.js';
import { messagePage } from './message.js';

/** The listing is re-read this often: the only way to see new mail of public inboxes, which have no websocket feed. */

/** `#/inbox`, `#/inbox/<address>` (its messages, live) or `#/inbox/<address>/<message id>` (one message). */
export function inboxPage(root: HTMLElement, [address, messageId]: string[]): (() => void) | void {
	if (address && messageId) return messagePage(root, address, messageId, { href: `#/inbox/${enc(address)}`, label: `Back to ${address}` });

	const input = h('input', {
		id: 'inbox-address',
		name: 'address',
		type: 'email',
		required: true,
		autocomplete: 'off',
		value: address ?? '',
	});
	const form = h(
		'form',
		{ class: 'inline-form', role: 'search' },
		h('label', { for: 'inbox-address' }, 'Email address'),
		input,
		h('button', { type: 'submit' }, 'Show messages'),
	);
	form.addEventListener('submit', (event) => {
		event.preventDefault();
		location.hash = `#/inbox/${enc(input.value.trim().toLowerCase())}`;
	});
	root.append(pageHeading('Inbox'), h('p', { class: 'hint' }, 'Type any address to see the mail it has received.'), form);
	if (!address) return;

	const status = new StatusLine();
	const list = h('div', { class: 'list' });
	root.append(
		h(
			'section',
			{ 'aria-labelledby': 'messages-heading' },
			h('h2', { id: 'messages-heading' }, `Messages for ${address}`),
			h(
				'p',
				{ class: 'hint' },
				`New mail appears by itself: checked every ${POLL_MS / 1000} seconds, and at once when web socket forwarding is on for a private address.`,
			),
			status.element,
			list,
		),
	);

	let shown: string | undefined;
	let known: Set<string> | undefined;
	const refresh = async () => {
		try {
			const messages = await getJson<MessageRecord[]>(`/api/addresses/${enc(address)}/messages`);
			const ids = messages.map((message) => message._id).join();
			if (ids === shown) return;
			const fresh = known ? messages.filter((message) => !known!.has(message._id)).length : 0;
			shown = ids;
			known = new Set(messages.map((message) => message._id));
			list.replaceChildren(messageTable(address, messages));
			if (fresh > 0) status.ok(fresh === 1 ? '1 new message' : `${fresh} new messages`);
		} catch (error) {
			status.error(error);
		}
	};
	const stopPolling = refreshEvery(refresh);
	const stopSocket = listenForMail({ addresses: address }, () => void refresh());
	return () => {
		stopPolling();
		stopSocket();
	};
}

function messageTable(address: string, messages: MessageRecord[]): Node {
	if (messages.length === 0) return h('p', {}, 'No messages yet.');
	return table(
		`Messages for ${address}, newest first`,
		['From', 'Subject', 'Received', 'Spam score'],
		messages.map((message) => [
			h('span', {}, formatAddresses(message.from), ' ', senderMark(message)),
			h('a', { href: `#/inbox/${enc(address)}/${enc(message._id)}` }, message.subject || '(no subject)'),
			formatTime(message.received),
			message.spam.toFixed(2),
		]),
	);
}
