import { enc, formatAddresses, getJson, getText, request, type AttachmentMeta, type LinkCheck, type MessageRecord } from '../api.js';
import { append, busy, formatBytes, formatTime, h, pageHeading, StatusLine, table } from '../dom.js';
import { tabs } from '../tabs.js';
import { authTable, senderMark } from '../sender-mark.js';

/** The response header of /api/body counting the remote images it left out. */
const BLOCKED_HEADER = 'mailroom-remote-images-blocked';

/** Where the page's "Back" link leads: the list the message was opened from. */
export interface BackLink {
	href: string;
	label: string;
}

/**
 * One message: its summary, Reply, Forward and Delete, and tabs for the sanitised HTML (in a frame that may run nothing),
 * the text, the raw source, the decoded headers, the attachments and the links (checked by the server on request).
 * Opening it marks it read.
 */
export function messagePage(root: HTMLElement, address: string, id: string, back: BackLink): void {
	const base = `/api/addresses/${enc(address)}/messages/${enc(id)}`;
	const heading = pageHeading('Message');
	const status = new StatusLine();
	const body = h('div', { class: 'message' });
	root.append(h('p', {}, h('a', { href: back.href }, `← ${back.label}`)), heading, status.element, body);

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
		// Failing to mark it read is not worth an error on a page that shows the message fine.
		if (message.read !== true) void request(`${base}/read/true`, { method: 'PUT' }).catch(() => undefined);
		const attachments = message.attachments?.length ?? 0;
		body.append(
			summary(message),
			actions(address, id, base, back, status),
			tabs('Message parts', [
				{ label: 'HTML', render: () => htmlView(address, id) },
				{
					label: 'Text',
					render: () => loaded(getText(`/api/text/${enc(address)}/${enc(id)}`), (text) => h('pre', { class: 'text' }, text)),
				},
				{ label: 'Source', render: () => loaded(getText(`/api/raw/${enc(address)}/${enc(id)}`), (raw) => h('pre', { class: 'raw' }, raw)) },
				{
					label: 'Headers',
					render: () =>
						loaded(getJson<{ name: string; value: string }[]>(`${base}/headers?decoded=1&messageHeadersFormat=json-ordered`), (headers) =>
							h('div', {}, h('h3', {}, 'Sender authentication'), authTable(message), h('h3', {}, 'Headers'), headerTable(headers)),
						),
				},
				{
					label: `Attachments (${attachments})`,
					render: () =>
						attachments
							? loaded(getJson<AttachmentMeta[]>(`${base}/attachments`), (list) => attachmentList(base, list))
							: h('p', {}, 'No attachments.'),
				},
				{ label: `Links (${message.links.length})`, render: () => linkView(base, message.links) },
			]),
		);
	})();
}

function summary(message: MessageRecord): Node {
	const rows: [string, string | Node][] = [
		['From', formatAddresses(message.from)],
		['Sender', senderMark(message) ?? ''],
		['To', formatAddresses(message.to)],
		['Cc', formatAddresses(message.cc)],
		['Inbox', message.inbox],
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

function actions(address: string, id: string, base: string, back: BackLink, status: StatusLine): Node {
	const remove = h('button', { type: 'button', class: 'danger' }, 'Delete message');
	remove.addEventListener('click', () => {
		if (!confirm('Delete this message? This cannot be undone.')) return;
		void busy(remove, async () => {
			try {
				await request(base, { method: 'DELETE' });
				location.hash = back.href;
			} catch (error) {
				status.error(error);
			}
		});
	});
	const compose = (mode: string) => `#/compose/${mode}/${enc(address)}/${enc(id)}`;
	return h(
		'p',
		{ class: 'actions' },
		h('a', { class: 'button secondary', href: compose('reply') }, 'Reply'),
		h('a', { class: 'button secondary', href: compose('forward') }, 'Forward'),
		remove,
	);
}

/** A placeholder replaced by the rendered result, or by the error. */
function loaded<T>(promise: Promise<T>, render: (value: T) => Node): Node {
	const slot = h('div', {}, h('p', { class: 'hint' }, 'Loading…'));
	promise.then(
		(value) => slot.replaceChildren(render(value)),
		(error) => slot.replaceChildren(h('p', { class: 'status error' }, (error as Error).message)),
	);
	return slot;
}

/** The frame's own policy while remote images are not shown: it adds to (never widens) the dashboard's. */
const NO_REMOTE_IMAGES = `<meta http-equiv="Content-Security-Policy" content="img-src data:">`;

/**
 * The server's sanitised HTML in a frame with `sandbox=""` (no scripts, forms, popups, same-origin access or top
 * navigation). Remote images stay out until the reader asks for them: a remote image tells the sender the mail was opened.
 */
function htmlView(address: string, id: string): Node {
	const view = h('div', {});
	const show = async (remoteImages: boolean) => {
		const response = await request(`/api/body/${enc(address)}/${enc(id)}${remoteImages ? '?images=1' : ''}`);
		const blocked = Number(response.headers.get(BLOCKED_HEADER) ?? 0);
		const frame = h('iframe', {
			sandbox: '',
			// A srcdoc frame takes the dashboard's policy (which allows http(s) images for when they are shown); until then a
			// policy of its own allows data: images only, should any other source get past the server.
			srcdoc: `${remoteImages ? '' : NO_REMOTE_IMAGES}${await response.text()}`,
			title: 'HTML part of the message',
			class: 'html-body',
			referrerpolicy: 'no-referrer',
		});
		const allow = h('button', { type: 'button', class: 'secondary' }, 'Show remote images');
		allow.addEventListener('click', () => void busy(allow, () => show(true)));
		const notice =
			blocked > 0 &&
			h('p', { class: 'notice' }, `${blocked === 1 ? '1 remote image is' : `${blocked} remote images are`} blocked. `, allow);
		view.replaceChildren();
		append(view, [notice, frame]);
	};
	return loaded(
		show(false).then(() => view),
		(node) => node,
	);
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

/** The links, and a button that has the server check whether each answers (it applies the webhooks' SSRF policy). */
function linkView(base: string, links: string[]): Node {
	if (links.length === 0) return h('p', {}, 'No links.');
	const results = new Map<string, HTMLElement>();
	const check = h('button', { type: 'button', class: 'secondary' }, 'Check links');
	const status = new StatusLine();
	check.addEventListener(
		'click',
		() =>
			void busy(check, async () => {
				status.ok('Checking links…');
				try {
					const report = await getJson<LinkCheck>(`${base}/link-check`);
					for (const link of report.links) {
						const cell = results.get(link.url);
						if (!cell) continue;
						const detail = link.status === 'ok' ? `HTTP ${link.statusCode}` : (link.error ?? '');
						cell.replaceChildren(h('span', { class: `badge ${link.status}` }, link.status), ` ${detail}`);
					}
					status.ok(`Checked ${formatTime(report.checked)}.`);
				} catch (error) {
					status.error(error);
				}
			}),
	);
	// Only web links become clickable; they open in a new tab without telling the site where they came from.
	const rows = links.map((link) => {
		const result = h('span', {}, '—');
		results.set(link, result);
		return [/^https?:\/\//i.test(link) ? h('a', { href: link, target: '_blank', rel: 'noopener noreferrer' }, link) : link, result];
	});
	return h('div', {}, h('p', {}, check), status.element, table('Links of the message', ['Link', 'Answer'], rows));
}

function headerTable(headers: { name: string; value: string }[]): Node {
	return table(
		'Message headers, decoded',
		['Name', 'Value'],
		headers.map(({ name, value }) => [name, value]),
	);
}
