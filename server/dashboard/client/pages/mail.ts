import { enc, formatAddresses, getJson, request, type ForwardingRecord, type MessageRecord } from '../api.js';
import { busy, formatTime, h, hidden, pageHeading, StatusLine } from '../dom.js';
import { listenForMail } from '../incoming-socket.js';
import { listKeys } from '../list-keys.js';
import { messagePage } from './message.js';

const PAGE_SIZE = 50;
const SVG = 'http://www.w3.org/2000/svg';

/** What the list shows. Kept across visits, so Back from a message returns to the same search, address and page. */
const view = { query: '', address: '', skip: 0 };

/** A message's inbox and id: what every call about it needs. */
const keyOf = (message: MessageRecord) => `${message.inbox}\n${message._id}`;
const messageHref = (message: MessageRecord) => `#/mail/${enc(message.inbox)}/${enc(message._id)}`;

/**
 * `#/mail`: all mail of the account's private addresses and domains (catch-all mail included), newest first, paged; new
 * mail is put at the top as the account-wide websocket brings it, and the unread count is in the page title. A search box
 * takes the language of /api/inbox-search. `#/mail/<address>/<id>` is one message.
 */
export function mailPage(root: HTMLElement, [address, messageId]: string[]): (() => void) | void {
	if (address && messageId) return messagePage(root, address, messageId, { href: '#/mail', label: 'Back to Mail' });

	const status = new StatusLine();
	const live = new StatusLine();
	const search = h('input', {
		id: 'mail-search',
		name: 'q',
		type: 'search',
		autocomplete: 'off',
		value: view.query,
		placeholder: 'from:alice has:attachment invoice',
	});
	const addressFilter = h('select', { id: 'mail-address', name: 'address' }, h('option', { value: '' }, 'All addresses'));
	const searchForm = h(
		'form',
		{ class: 'inline-form', role: 'search' },
		h('div', { class: 'field grow' }, h('label', { for: 'mail-search' }, 'Search mail'), search),
		h('div', { class: 'field' }, h('label', { for: 'mail-address' }, 'Address'), addressFilter),
		h('button', { type: 'submit' }, 'Search'),
	);
	const deleteSelected = h('button', { type: 'button', class: 'danger', disabled: true }, 'Delete selected');
	const deleteAll = h('button', { type: 'button', class: 'danger', hidden: true }, 'Delete all of this address');
	const newer = h('button', { type: 'button', class: 'secondary' }, 'Newer');
	const older = h('button', { type: 'button', class: 'secondary' }, 'Older');
	const range = h('span', { class: 'hint' });
	const list = h('div', { class: 'list' });
	root.append(
		pageHeading('Mail'),
		searchForm,
		h('p', { class: 'actions' }, deleteSelected, deleteAll),
		status.element,
		live.element,
		list,
		h('p', { class: 'pager' }, newer, older, range),
		h('p', { class: 'hint' }, 'Keys: j and k move, Enter opens, / searches, Delete deletes.'),
	);

	let messages: MessageRecord[] = [];
	let unread = 0;
	const selected = new Set<string>();
	const showTitle = () => (document.title = `${unread > 0 ? `(${unread}) ` : ''}Mail · Mailroom`);

	const draw = () => {
		// A redraw (new mail arriving, say) keeps the ticks of the messages still shown.
		const shown = new Set(messages.map(keyOf));
		for (const key of selected) if (!shown.has(key)) selected.delete(key);
		deleteSelected.disabled = selected.size === 0;
		list.replaceChildren(
			messages.length
				? mailTable(messages, selected, () => (deleteSelected.disabled = selected.size === 0))
				: h('p', {}, view.query ? 'No messages match.' : 'No messages yet.'),
		);
		const paged = !view.query && !view.address;
		newer.hidden = older.hidden = !paged;
		newer.disabled = view.skip === 0;
		older.disabled = messages.length < PAGE_SIZE;
		range.textContent =
			paged && messages.length ? `Messages ${view.skip + 1}–${view.skip + messages.length}` : `${messages.length} messages`;
		deleteAll.hidden = !view.address;
		deleteAll.textContent = `Delete all of ${view.address}`;
	};

	const load = async () => {
		try {
			// The unread count comes with the account's page of mail, so that is read whatever else is shown.
			const inbox = await getJson<{ messages: MessageRecord[]; unread: number }>(`/api/inbox?limit=${PAGE_SIZE}&skip=${view.skip}`);
			unread = inbox.unread;
			if (view.query) {
				const found = await getJson<{ messages: MessageRecord[] }>(`/api/inbox-search?q=${enc(view.query)}`);
				messages = found.messages.filter((message) => !view.address || message.inbox === view.address);
			} else if (view.address) {
				messages = await getJson<MessageRecord[]>(`/api/addresses/${enc(view.address)}/messages?limit=${PAGE_SIZE}`);
			} else {
				messages = inbox.messages;
			}
			draw();
			showTitle();
		} catch (error) {
			status.error(error);
		}
	};

	const shows = (message: MessageRecord) => !view.query && view.skip === 0 && (!view.address || view.address === message.inbox);
	const arrived = (message: MessageRecord) => {
		if (messages.some((shown) => keyOf(shown) === keyOf(message))) return;
		if (message.read !== true) unread++;
		showTitle();
		live.ok(`New message from ${formatAddresses(message.from)}: ${message.subject || '(no subject)'}`);
		if (!shows(message)) return;
		messages = [message, ...messages].slice(0, PAGE_SIZE);
		draw();
	};

	searchForm.addEventListener('submit', (event) => {
		event.preventDefault();
		Object.assign(view, { query: search.value.trim(), address: addressFilter.value, skip: 0 });
		status.clear();
		void load();
	});
	addressFilter.addEventListener('change', () => searchForm.requestSubmit());
	newer.addEventListener('click', () => void busy(newer, () => ((view.skip = Math.max(0, view.skip - PAGE_SIZE)), load())));
	older.addEventListener('click', () => void busy(older, () => ((view.skip += PAGE_SIZE), load())));
	const remove = async (chosen: MessageRecord[]) => {
		if (
			chosen.length === 0 ||
			!confirm(`Delete ${chosen.length === 1 ? 'this message' : `these ${chosen.length} messages`}? This cannot be undone.`)
		)
			return;
		try {
			for (const message of chosen)
				await request(`/api/addresses/${enc(message.inbox)}/messages/${enc(message._id)}`, { method: 'DELETE' });
			status.ok(chosen.length === 1 ? 'Deleted 1 message.' : `Deleted ${chosen.length} messages.`);
		} catch (error) {
			status.error(error);
		}
		await load();
	};
	deleteSelected.addEventListener(
		'click',
		() => void busy(deleteSelected, () => remove(messages.filter((message) => selected.has(keyOf(message))))),
	);
	deleteAll.addEventListener('click', () => {
		const address = view.address;
		if (!confirm(`Delete every message of ${address}? This cannot be undone.`)) return;
		void busy(deleteAll, async () => {
			try {
				await request(`/api/addresses/${enc(address)}/messages`, { method: 'DELETE' });
				status.ok(`Deleted all messages of ${address}.`);
			} catch (error) {
				status.error(error);
			}
			await load();
		});
	});

	void getJson<ForwardingRecord[]>('/api/addresses').then((addresses) => {
		addressFilter.append(...addresses.map((record) => h('option', { value: record._id }, record._id)));
		addressFilter.value = view.address;
	}, status.error.bind(status));
	void load();
	const stopSocket = listenForMail({ account: true }, arrived);
	const stopKeys = listKeys(list, {
		search: () => search.focus(),
		remove: (index) => void remove([messages[index]]),
	});
	return () => {
		stopSocket();
		stopKeys();
	};
}

/** A paperclip drawn as SVG: an emoji would depend on the fonts the system has. */
function paperclip(): SVGSVGElement {
	const svg = document.createElementNS(SVG, 'svg');
	const path = document.createElementNS(SVG, 'path');
	for (const [name, value] of Object.entries({
		viewBox: '0 0 24 24',
		width: '16',
		height: '16',
		'aria-hidden': 'true',
		fill: 'none',
		stroke: 'currentColor',
	}))
		svg.setAttribute(name, value);
	path.setAttribute('stroke-width', '2');
	path.setAttribute(
		'd',
		'M21.44 11.05l-9.19 9.19a6 6 0 0 1-8.49-8.49l9.19-9.19a4 4 0 0 1 5.66 5.66l-9.2 9.19a2 2 0 0 1-2.83-2.83l8.49-8.48',
	);
	svg.append(path);
	return svg;
}

/** The list: a checkbox, the unread and attachment marks, sender, subject (the link that opens it), address, time. */
function mailTable(messages: MessageRecord[], selected: Set<string>, changed: () => void): Node {
	const headings = ['Select', 'From', 'Subject', 'Address', 'Received'];
	const rows = messages.map((message) => {
		const subject = message.subject || '(no subject)';
		const checkbox = h('input', { type: 'checkbox', 'aria-label': `Select ${subject}`, checked: selected.has(keyOf(message)) });
		checkbox.addEventListener('change', () => {
			if (checkbox.checked) selected.add(keyOf(message));
			else selected.delete(keyOf(message));
			changed();
		});
		const unread = message.read !== true;
		const cells = [
			checkbox,
			formatAddresses(message.from),
			h(
				'span',
				{},
				unread && h('span', { class: 'mark unread', title: 'Unread' }, '●', hidden(' unread')),
				h('a', { href: messageHref(message) }, subject),
				message.attachments?.length &&
					h('span', { class: 'mark attachment', title: 'Has attachments' }, paperclip(), hidden(' has attachments')),
			),
			message.inbox,
			h('time', { datetime: message.received }, formatTime(message.received)),
		];
		return h(
			'tr',
			{ class: unread ? 'mail-row unread' : 'mail-row' },
			cells.map((cell, i) => h('td', { 'data-label': headings[i] }, cell)),
		);
	});
	return h(
		'table',
		{ class: 'cards mail' },
		h('caption', { class: 'visually-hidden' }, 'Mail, newest first'),
		h(
			'thead',
			{},
			h(
				'tr',
				{},
				headings.map((heading) => h('th', { scope: 'col' }, heading)),
			),
		),
		h('tbody', {}, rows),
	);
}
