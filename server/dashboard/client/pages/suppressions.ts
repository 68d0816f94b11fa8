import { enc, getJson, request, type Suppression } from '../api.js';
import { busy, formatTime, h, hidden, StatusLine, table } from '../dom.js';

/**
 * The account's suppression list (GET /api/suppressions): the addresses that bounced or complained, which sends are refused
 * to, with the report that put each there; Remove takes one off (DELETE /api/suppressions/:address), so mail goes to it again.
 */
export function suppressionList(): Node {
	const status = new StatusLine();
	const list = h('div', { class: 'list' }, h('p', { class: 'hint' }, 'Loading…'));

	const refresh = async () => {
		try {
			const entries = await getJson<Suppression[]>('/api/suppressions');
			list.replaceChildren(entries.length === 0 ? emptyList() : suppressionTable(entries, removeButton));
		} catch (error) {
			status.error(error);
		}
	};

	const removeButton = (entry: Suppression) => {
		const button = h('button', { type: 'button', class: 'danger' }, 'Remove', hidden(` ${entry.address} from the suppression list`));
		button.addEventListener('click', () => {
			if (!confirm(`Take ${entry.address} off the suppression list? Mail to it is sent again.`)) return;
			void busy(button, async () => {
				try {
					await request(`/api/suppressions/${enc(entry.address)}`, { method: 'DELETE' });
					status.ok(`${entry.address} is off the suppression list: mail to it is sent again.`);
				} catch (error) {
					status.error(error);
				}
				await refresh();
			});
		});
		return button;
	};

	void refresh();
	return h(
		'div',
		{},
		h(
			'p',
			{ class: 'hint' },
			'A send (API or SMTP) to an address listed here is refused with 422, unless it says "sendToSuppressed": true.',
		),
		status.element,
		list,
	);
}

function emptyList(): Node {
	return h(
		'p',
		{ class: 'empty' },
		'No suppressed addresses. When a delivery report says a recipient of your mail bounced (5.x.x) or reported it as spam, its address is listed here and your sends to it are refused until you remove it.',
	);
}

function suppressionTable(entries: Suppression[], removeButton: (entry: Suppression) => Node): Node {
	return table(
		'Suppressed addresses, newest first',
		['Address', 'Why', 'Diagnostic', 'Since', 'Sent message', 'Actions'],
		entries.map((entry) => [
			entry.address,
			h('span', {}, h('span', { class: `badge ${entry.reason}` }, entry.reason), entry.statusCode ? ` ${entry.statusCode}` : ''),
			entry.diagnostic ?? '—',
			formatTime(entry.created),
			h('a', { href: `#/sent/${enc(entry.sentMessageId)}` }, 'The sent message', hidden(` to ${entry.address}`)),
			removeButton(entry),
		]),
	);
}
