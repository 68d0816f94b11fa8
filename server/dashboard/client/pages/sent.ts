import { enc, getJson, type OutgoingRecord } from '../api.js';
import { formatTime, h, pageHeading, StatusLine, table } from '../dom.js';
import { refreshEvery } from '../poll.js';
import { sentMessagePage } from './sent-message.js';

/**
 * `#/sent`: the account's sent mail, newest first, with each recipient's delivery status, re-read while open.
 * `#/sent/<id>` is one sent message.
 */
export function sentPage(root: HTMLElement, [id]: string[]): () => void {
	if (id) return sentMessagePage(root, id);
	const status = new StatusLine();
	const list = h('div', { class: 'list' });
	root.append(
		pageHeading('Sent'),
		h(
			'p',
			{ class: 'actions' },
			h('a', { class: 'button', href: '#/compose' }, 'Compose'),
			h('a', { class: 'button secondary', href: '#/account/suppression-list' }, 'Suppression list'),
		),
		status.element,
		list,
	);
	let shown = '';
	const refresh = async () => {
		try {
			const sent = await getJson<OutgoingRecord[]>('/api/outgoing-messages?limit=100');
			const json = JSON.stringify(sent);
			if (json === shown) return;
			shown = json;
			list.replaceChildren(sent.length ? sentTable(sent) : h('p', {}, 'Nothing sent yet.'));
		} catch (error) {
			status.error(error);
		}
	};
	return refreshEvery(refresh);
}

function sentTable(sent: OutgoingRecord[]): Node {
	return table(
		'Sent mail, newest first',
		['Sent', 'From', 'Subject', 'Recipients'],
		sent.map((message) => [
			formatTime(message.sent),
			message.from,
			h('a', { href: `#/sent/${enc(message._id)}` }, message.subject || '(no subject)'),
			h(
				'ul',
				{ class: 'plain' },
				message.recipients.map((recipient) =>
					h(
						'li',
						{},
						`${recipient.address} (${recipient.field}) `,
						h('span', { class: `badge ${recipient.status}` }, recipient.status),
						recipient.statusCode ? ` ${recipient.statusCode}` : '',
						recipient.error ? ` ${recipient.error}` : '',
						recipient.note ? h('span', { class: 'hint' }, ` ${recipient.note}`) : '',
					),
				),
			),
		]),
	);
}
