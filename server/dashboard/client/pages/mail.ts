import { enc, formatAddresses, getJson, request, type ForwardingRecord, type Me, type MessageRecord } from '../api.js';
import { busy, formatTime, h, hidden, pageHeading, StatusLine } from '../dom.js';
import { listenForMail } from '../incoming-socket.js';
import { listKeys } from '../list-keys.js';
import { readWatchList, saveWatchList, watchProblem } from '../watch-list.js';
import { messagePage } from './message.js';

const PAGE_SIZE = 50;
const SVG = 'http://www.w3.org/2000/svg';

/**
 * Where a page starts, for each source of the list: how many of the account's messages (`/api/inbox`, paged by `skip`)
 * and, for each listed address, the `received` of its last message shown before (its `until`); `shown` counts the rows
 * of the pages before.
 */
type Cursor = { shown: number; account: number; until: Record<string, string> };
const FIRST_PAGE: Cursor = { shown: 0, account: 0, until: {} };

/** What the list shows. Kept across visits, so Back from a message returns to the same search, address and page. */
const view = { query: '', address: '', pages: [FIRST_PAGE] };

/** A message's inbox and id: what every call about it needs. */
const keyOf = (message: MessageRecord) => `${message.inbox}\n${message._id}`;
const messageHref = (message: MessageRecord) => `#/mail/${enc(message.inbox)}/${enc(message._id)}`;
const newestFirst = (a: MessageRecord, b: MessageRecord) => Date.parse(b.received) - Date.parse(a.received);
const inboxPath = (address: string, until: string | undefined) =>
	`/api/addresses/${enc(address)}/messages?limit=${PAGE_SIZE}${until ? `&until=${enc(until)}` : ''}`;

/**
 * `#/mail`: all mail of the account's private addresses and domains (catch-all mail included) and of the public addresses
 * on the user's watch list, newest first, paged; new mail is put at the top as the account-wide websocket brings it, and
 * the account's unread count is in the page title. A search box takes the language of /api/inbox-search.
 * `#/mail/<address>/<id>` is one message.
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
	const addressFilter = h('select', { id: 'mail-address', name: 'address' });
	const searchForm = h(
		'form',
		{ class: 'inline-form', role: 'search' },
		h('div', { class: 'field grow' }, h('label', { for: 'mail-search' }, 'Search mail'), search),
		h('div', { class: 'field' }, h('label', { for: 'mail-address' }, 'Address'), addressFilter),
		h('button', { type: 'submit' }, 'Search'),
	);
	const watchInput = h('input', {
		id: 'mail-watch',
		name: 'watch',
		type: 'email',
		autocomplete: 'off',
		placeholder: 'news@example.com',
		'aria-describedby': 'mail-watch-problem',
	});
	const watchProblemLine = h('p', { id: 'mail-watch-problem', class: 'status error', role: 'alert' });
	const watchItems = h('ul', { class: 'watch-list' });
	const watchForm = h(
		'form',
		{ class: 'inline-form', novalidate: true },
		h('div', { class: 'field grow' }, h('label', { for: 'mail-watch' }, 'Watch a public address'), watchInput),
		h('button', { type: 'submit', class: 'secondary' }, 'Watch'),
	);
	const watchSection = h(
		'section',
		{ class: 'watch', 'aria-labelledby': 'watch-heading' },
		h('h2', { id: 'watch-heading' }, 'Watch list'),
		h('p', { class: 'hint' }, 'Public addresses whose mail is listed with yours. The list is kept in this browser only.'),
		watchForm,
		watchProblemLine,
		watchItems,
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
		watchSection,
		h('p', { class: 'actions' }, deleteSelected, deleteAll),
		status.element,
		live.element,
		list,
		h('p', { class: 'pager' }, newer, older, range),
		h('p', { class: 'hint' }, 'Keys: j and k move, Enter opens, / searches, Delete deletes.'),
	);

	let accountId = '';
	/** The account's reserved addresses and its domains, and the watched public addresses. */
	let own: string[] = [];
	let domains: string[] = [];
	let watched: string[] = [];
	let messages: MessageRecord[] = [];
	let moreOlder = false;
	let unread = 0;
	const selected = new Set<string>();
	const showTitle = () => (document.title = `${unread > 0 ? `(${unread}) ` : ''}Mail · Mailroom`);
	const cursor = () => view.pages[view.pages.length - 1];
	/** A message of a watched address rather than of the account (a public address is never the account's). */
	const isWatched = (message: MessageRecord) => watched.includes(message.inbox);

	/** Where the page after this one starts: past every row shown, source by source. */
	const nextCursor = (): Cursor => {
		const { shown, account, until } = cursor();
		const next: Cursor = { shown: shown + messages.length, account, until: { ...until } };
		for (const message of messages) {
			if (view.address || isWatched(message)) next.until[message.inbox] = message.received;
			else next.account++;
		}
		return next;
	};

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
		const paged = !view.query;
		const first = cursor().shown;
		newer.hidden = older.hidden = !paged;
		newer.disabled = view.pages.length === 1;
		older.disabled = !moreOlder;
		range.textContent = paged && messages.length ? `Messages ${first + 1}–${first + messages.length}` : `${messages.length} messages`;
		deleteAll.hidden = !view.address || watched.includes(view.address);
		deleteAll.textContent = `Delete all of ${view.address}`;
	};

	/**
	 * One page. Under a search: the search's answer. One address: its inbox, paged by `until`. All addresses: the account's
	 * page and each watched address's next page (from its own `until`), merged newest first and cut to PAGE_SIZE. Each
	 * source gave its newest PAGE_SIZE past the cursor, so the cut holds exactly the newest PAGE_SIZE of them all; the next
	 * page starts, source by source, after the rows shown (nextCursor), so no message is skipped or shown twice.
	 */
	const load = async () => {
		try {
			const { account, until } = cursor();
			const sources = view.query ? [] : view.address ? [view.address] : watched;
			// The unread count comes with the account's page of mail, so that is read whatever else is shown.
			const [inbox, ...lists] = await Promise.all([
				getJson<{ messages: MessageRecord[]; unread: number }>(`/api/inbox?limit=${PAGE_SIZE}&skip=${account}`),
				...sources.map((source) => getJson<MessageRecord[]>(inboxPath(source, until[source]))),
			]);
			unread = inbox.unread;
			if (view.query) {
				const found = await getJson<{ messages: MessageRecord[] }>(`/api/inbox-search?q=${enc(view.query)}`);
				messages = found.messages.filter((message) => !view.address || message.inbox === view.address);
				moreOlder = false;
			} else {
				const merged = [...(view.address ? [] : inbox.messages), ...lists.flat()].sort(newestFirst);
				messages = merged.slice(0, PAGE_SIZE);
				const full = [view.address ? [] : inbox.messages, ...lists].some((page) => page.length === PAGE_SIZE);
				moreOlder = merged.length > PAGE_SIZE || full;
			}
			draw();
			showTitle();
		} catch (error) {
			status.error(error);
		}
	};

	// The socket brings the account's mail and the watched addresses', all of which "All addresses" lists.
	const shows = (message: MessageRecord) => !view.query && view.pages.length === 1 && (!view.address || view.address === message.inbox);
	const arrived = (message: MessageRecord) => {
		if (messages.some((shown) => keyOf(shown) === keyOf(message))) return;
		if (message.read !== true && !isWatched(message)) unread++;
		showTitle();
		live.ok(`New message from ${formatAddresses(message.from)}: ${message.subject || '(no subject)'}`);
		if (!shows(message)) return;
		// On the first page the next cursor is worked out from the rows shown, so the row pushed off is on the next page.
		messages = [message, ...messages].slice(0, PAGE_SIZE);
		moreOlder ||= messages.length === PAGE_SIZE;
		draw();
	};

	const fillFilter = () => {
		const option = (address: string) => h('option', { value: address }, address);
		addressFilter.replaceChildren(h('option', { value: '' }, 'All addresses'), ...own.map(option));
		if (watched.length) addressFilter.append(h('optgroup', { label: 'Watched' }, watched.map(option)));
		addressFilter.value = own.includes(view.address) || watched.includes(view.address) ? view.address : '';
	};

	let stopSocket = () => {};
	const listen = () => {
		stopSocket();
		delete watchSection.dataset.listening;
		stopSocket = listenForMail(
			{ account: true, addresses: watched.join(',') },
			arrived,
			(addresses) => (watchSection.dataset.listening = addresses.join(',')),
		);
	};

	const drawWatchList = () =>
		watchItems.replaceChildren(
			...watched.map((address) => {
				const remove = h('button', { type: 'button', class: 'secondary' }, 'Remove', hidden(` ${address} from the watch list`));
				remove.addEventListener('click', () => setWatched(watched.filter((entry) => entry !== address)));
				return h('li', {}, h('span', { class: 'watched-address' }, address), ' ', remove);
			}),
		);

	/** A changed watch list: kept, shown, listened to (the socket reopened with the new list), and the list re-read. */
	const setWatched = (addresses: string[]) => {
		watched = addresses;
		saveWatchList(accountId, watched);
		drawWatchList();
		status.clear();
		if (view.address && !own.includes(view.address) && !watched.includes(view.address)) view.address = '';
		fillFilter();
		listen();
		view.pages = [FIRST_PAGE];
		void load();
	};

	watchForm.addEventListener('submit', (event) => {
		event.preventDefault();
		const address = watchInput.value.trim().toLowerCase();
		const problem = watchProblem(address, watched, own, domains);
		watchProblemLine.textContent = problem ?? '';
		watchInput.setAttribute('aria-invalid', String(Boolean(problem)));
		if (problem) return;
		// The server decides whether the key may read it: another account's private address is refused (403).
		void busy(watchForm.querySelector('button')!, async () => {
			try {
				await request(`/api/addresses/${enc(address)}/messages?limit=1`);
			} catch (error) {
				watchProblemLine.textContent = `${address} cannot be watched: ${error instanceof Error ? error.message : String(error)}`;
				watchInput.setAttribute('aria-invalid', 'true');
				return;
			}
			watchInput.value = '';
			setWatched([...watched, address]);
		});
	});
	searchForm.addEventListener('submit', (event) => {
		event.preventDefault();
		Object.assign(view, { query: search.value.trim(), address: addressFilter.value, pages: [FIRST_PAGE] });
		status.clear();
		void load();
	});
	addressFilter.addEventListener('change', () => searchForm.requestSubmit());
	// Drawn again once busy() has enabled the button, which the page may have disabled (no older mail).
	newer.addEventListener('click', () => void busy(newer, () => (view.pages.pop(), load())).then(draw));
	older.addEventListener('click', () => void busy(older, () => (view.pages.push(nextCursor()), load())).then(draw));
	/** Deleted rows leave the list with the status line that says so, not only once the page is read again. */
	const drop = (deleted: (message: MessageRecord) => boolean) => {
		messages = messages.filter((message) => !deleted(message));
		draw();
	};
	const remove = async (chosen: MessageRecord[]) => {
		if (
			chosen.length === 0 ||
			!confirm(`Delete ${chosen.length === 1 ? 'this message' : `these ${chosen.length} messages`}? This cannot be undone.`)
		)
			return;
		const deleted = new Set<string>();
		try {
			for (const message of chosen) {
				await request(`/api/addresses/${enc(message.inbox)}/messages/${enc(message._id)}`, { method: 'DELETE' });
				deleted.add(keyOf(message));
			}
			status.ok(chosen.length === 1 ? 'Deleted 1 message.' : `Deleted ${chosen.length} messages.`);
		} catch (error) {
			status.error(error);
		}
		drop((message) => deleted.has(keyOf(message)));
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
				drop((message) => message.inbox === address);
			} catch (error) {
				status.error(error);
			}
			await load();
		});
	});

	// The watch list is stored per account, so the account is known before the first page is read.
	let closed = false;
	void Promise.all([
		getJson<Me>('/api/me'),
		getJson<ForwardingRecord[]>('/api/addresses'),
		getJson<{ _id: string }[]>('/api/domains'),
	]).then(([me, addresses, ownDomains]) => {
		if (closed) return;
		accountId = me._id;
		own = addresses.map((record) => record._id);
		domains = ownDomains.map((domain) => domain._id);
		watched = readWatchList(accountId);
		drawWatchList();
		fillFilter();
		view.address = addressFilter.value;
		listen();
		void load();
	}, status.error.bind(status));
	fillFilter();
	const stopKeys = listKeys(list, {
		search: () => search.focus(),
		remove: (index) => void remove([messages[index]]),
	});
	return () => {
		closed = true;
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
				// A socket's frame lists no attachments as [], so the length is compared (a bare 0 would be shown).
				(message.attachments?.length ?? 0) > 0 &&
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
