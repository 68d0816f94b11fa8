import { getJson, type OutgoingRecord } from '../api.js';
import { formatTime, h, pageHeading, StatusLine, table } from '../dom.js';
import { POLL_MS } from './inbox.js';

/** `#/sent`: the account's sent mail, newest first, with each recipient's delivery status, re-read while open. */
export function sentPage(root: HTMLElement): () => void {
	const status = new StatusLine();
	const list = h('div', { class: 'list' });
	root.append(pageHeading('Sent'), h('p', {}, h('a', { class: 'button', href: '#/compose' }, 'Compose')), status.element, list);
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
	void refresh();
	const timer = setInterval(() => {
		if (!document.hidden) void refresh();
	}, POLL_MS);
	return () => clearInterval(timer);
}

function sentTable(sent: OutgoingRecord[]): Node {
	return table(
		'Sent mail, newest first',
		['Sent', 'From', 'Subject', 'Recipients'],
		sent.map((message) => [
			formatTime(message.sent),
			message.from,
			message.subject || '(no subject)',
			h(
				'ul',
				{ class: 'plain' },
				message.recipients.map((recipient) =>
					h(
						'li',
						{},
						`${recipient.address} (${recipient.field}) `,
						h('span', { class: `badge ${recipient.status}` }, recipient.status),
						recipient.error ? ` ${recipient.error}` : '',
						recipient.note ? h('span', { class: 'hint' }, ` ${recipient.note}`) : '',
					),
				),
			),
		]),
	);
}
