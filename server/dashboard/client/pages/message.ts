import { ApiError, enc, formatAddresses, getJson, getText, request, type AttachmentMeta, type MessageRecord } from '../api.js';
import { busy, formatBytes, formatTime, h, pageHeading, StatusLine, table } from '../dom.js';

/** One message: summary, text, sanitised HTML in a frame that may run nothing, attachments, links, headers, raw source. */
export function messagePage(root: HTMLElement, address: string, id: string): void {
	const base = `/api/addresses/${enc(address)}/messages/${enc(id)}`;
	const heading = pageHeading('Message');
	const status = new StatusLine();
	const body = h('div', { class: 'message' });
	root.append(h('p', {}, h('a', { href: `#/inbox/${enc(address)}` }, `← Back to ${address}`)), heading, status.element, body);

	void (async () => {
		let message: MessageRecord;
		try {
			message = await getJson<MessageRecord>(base);
		} catch (error) {
			status.error(error);
			return;
		}
		heading.textContent = message.subject || '(no subject)';
		document.title = `${heading.textContent} · Mailroom`;
		body.append(
			summary(message),
			deleteButton(address, base, status),
			section(
				'Text',
				loaded(getText(`/api/text/${enc(address)}/${enc(id)}`), (text) => h('pre', { class: 'text' }, text)),
			),
			section('HTML', loaded(getText(`/api/body/${enc(address)}/${enc(id)}`), htmlFrame, 'This message has no HTML part.')),
			section(
				'Attachments',
				message.attachments?.length
					? loaded(getJson<AttachmentMeta[]>(`${base}/attachments`), (list) => attachmentList(base, list))
					: h('p', {}, 'No attachments.'),
			),
			section('Links', linkList(message.links)),
			disclosure('Headers', () => getJson<Record<string, string | string[]>>(`${base}/headers`).then(headerTable)),
			disclosure('Raw source', () => getText(`/api/raw/${enc(address)}/${enc(id)}`).then((raw) => h('pre', { class: 'raw' }, raw))),
		);
	})();
}

function summary(message: MessageRecord): Node {
	const rows: [string, string][] = [
		['From', formatAddresses(message.from)],
		['To', formatAddresses(message.to)],
		['Cc', formatAddresses(message.cc)],
		['Received', formatTime(message.received)],
		['Size', formatBytes(message.size)],
		['Spam score', message.spam.toFixed(2)],
	];
	return h(
		'dl',
		{ class: 'summary' },
		rows.filter(([, value]) => value !== '').flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
	);
}

function deleteButton(address: string, base: string, status: StatusLine): Node {
	const button = h('button', { type: 'button', class: 'danger' }, 'Delete message');
	button.addEventListener('click', () => {
		if (!confirm('Delete this message? This cannot be undone.')) return;
		void busy(button, async () => {
			try {
				await request(base, { method: 'DELETE' });
				location.hash = `#/inbox/${enc(address)}`;
			} catch (error) {
				status.error(error);
			}
		});
	});
	return h('p', {}, button);
}

function section(title: string, content: Node): Node {
	const id = `section-${title.toLowerCase().replace(/\W+/g, '-')}`;
	return h('section', { 'aria-labelledby': id }, h('h2', { id }, title), content);
}

/** A placeholder replaced by the rendered result, or by the error (a 404 means the part does not exist). */
function loaded<T>(promise: Promise<T>, render: (value: T) => Node, missing?: string): Node {
	const slot = h('div', {}, h('p', { class: 'hint' }, 'Loading…'));
	promise.then(
		(value) => slot.replaceChildren(render(value)),
		(error) => {
			const absent = missing !== undefined && error instanceof ApiError && error.status === 404;
			slot.replaceChildren(absent ? h('p', {}, missing) : h('p', { class: 'status error' }, (error as Error).message));
		},
	);
	return slot;
}

/** Loads its content the first time it is opened (raw sources can be large). */
function disclosure(title: string, load: () => Promise<Node>): Node {
	const details = h('details', {}, h('summary', {}, title));
	details.addEventListener('toggle', () => {
		if (details.open && details.childElementCount === 1) details.append(loaded(load(), (node) => node));
	});
	return h('section', {}, details);
}

/** `sandbox` with no permissions: no scripts, no forms, no same-origin access, no top navigation. */
function htmlFrame(html: string): Node {
	return h('iframe', { sandbox: '', srcdoc: html, title: 'HTML part of the message', class: 'html-body', referrerpolicy: 'no-referrer' });
}

function attachmentList(base: string, attachments: AttachmentMeta[]): Node {
	const status = new StatusLine();
	const items = attachments.map((attachment) => {
		const button = h('button', { type: 'button', class: 'secondary' }, 'Download ', attachment.fileName || attachment.checksum);
		button.addEventListener(
			'click',
			() =>
				void busy(button, async () => {
					try {
						// The key must go in a header, so the bytes are fetched here and handed to the browser as a blob.
						const blob = await (await request(`${base}/attachments/${enc(attachment.checksum)}`)).blob();
						const url = URL.createObjectURL(blob);
						h('a', { href: url, download: attachment.fileName || attachment.checksum }).click();
						setTimeout(() => URL.revokeObjectURL(url), 10_000);
					} catch (error) {
						status.error(error);
					}
				}),
		);
		return h('li', {}, button, ` ${attachment.contentType}, ${formatBytes(attachment.length)}`);
	});
	return h('div', {}, h('ul', { class: 'plain' }, items), status.element);
}

function linkList(links: string[]): Node {
	if (links.length === 0) return h('p', {}, 'No links.');
	// Only web links become clickable; they open in a new tab without telling the site where they came from.
	return h(
		'ul',
		{},
		links.map((link) =>
			h('li', {}, /^https?:\/\//i.test(link) ? h('a', { href: link, target: '_blank', rel: 'noopener noreferrer' }, link) : link),
		),
	);
}

function headerTable(headers: Record<string, string | string[]>): Node {
	const rows = Object.entries(headers).flatMap(([name, values]) =>
		(Array.isArray(values) ? values : [values]).map((value) => [name, value]),
	);
	return table('MessageRecord headers', ['Name', 'Value'], rows);
}
