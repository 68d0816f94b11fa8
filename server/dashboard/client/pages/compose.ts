import {
	enc,
	formatAddresses,
	getJson,
	getText,
	request,
	sendJson,
	type AttachmentMeta,
	type ForwardingRecord,
	type Me,
	type MessageRecord,
	type Sent,
} from '../api.js';
import { busy, formatBytes, h, pageHeading, StatusLine } from '../dom.js';
import { clearFormErrors, showFormError } from '../field-errors.js';
import { base64Of, blobBase64 } from '../base64.js';

/** An attachment as POST /api/outgoing-messages takes it. */
interface OutgoingFile {
	filename: string;
	contentType: string;
	content: string;
}

/** What a reply or forward starts with. */
interface Draft {
	from: string;
	to: string;
	subject: string;
	text: string;
	inReplyTo?: string;
	attachments: OutgoingFile[];
}

const EMPTY: Draft = { from: '', to: '', subject: '', text: '', attachments: [] };

/**
 * `#/compose`, `#/compose/reply/<address>/<id>` and `#/compose/forward/<address>/<id>`: a form for
 * POST /api/outgoing-messages from one of the account's addresses, with the credits left; reply and forward fill it from
 * the message (a forward carries its attachments).
 */
export function composePage(root: HTMLElement, [mode, address, id]: string[]): void {
	const status = new StatusLine();
	const credits = h('p', { class: 'hint' }, 'Credits left: …');
	const from = h('select', { id: 'compose-from', name: 'from', required: true });
	const field = (name: string, label: string, input: HTMLElement) =>
		h('div', { class: 'field' }, h('label', { for: `compose-${name}` }, label), input);
	const text = (name: string, type = 'text') => h('input', { id: `compose-${name}`, name, type, autocomplete: 'off' });
	const to = text('to');
	const cc = text('cc');
	const bcc = text('bcc');
	const subject = text('subject');
	const body = h('textarea', { id: 'compose-text', name: 'text', rows: 10 });
	const html = h('textarea', { id: 'compose-html', name: 'html', rows: 4 });
	const files = h('input', { id: 'compose-files', name: 'attachments', type: 'file', multiple: true });
	const carried = h('ul', { class: 'plain' });
	const send = h('button', { type: 'submit' }, 'Send');
	const form = h(
		'form',
		{ class: 'panel compose' },
		field('from', 'From', from),
		field('to', 'To', to),
		field('cc', 'Cc', cc),
		field('bcc', 'Bcc', bcc),
		field('subject', 'Subject', subject),
		field('text', 'Text', body),
		field('html', 'HTML (optional)', html),
		field('files', 'Attachments', files),
		carried,
		h('p', { class: 'hint' }, 'Separate addresses with commas. Each recipient (To, Cc and Bcc) takes one credit.'),
		send,
		status.element,
	);
	root.append(pageHeading(mode === 'reply' ? 'Reply' : mode === 'forward' ? 'Forward' : 'Compose'), credits, form);

	let draft = EMPTY;
	const showCredits = (left: number) => (credits.textContent = `Credits left: ${left}`);
	void (async () => {
		try {
			const [me, addresses] = await Promise.all([getJson<Me>('/api/me'), getJson<ForwardingRecord[]>('/api/addresses')]);
			showCredits(me.sendsRemaining);
			from.append(...addresses.map((record) => h('option', { value: record._id }, record._id)));
			if ((mode === 'reply' || mode === 'forward') && address && id) draft = await startFrom(mode, address, id);
			if (draft.from && addresses.some((record) => record._id === draft.from)) from.value = draft.from;
			to.value = draft.to;
			subject.value = draft.subject;
			body.value = draft.text;
			carried.replaceChildren(...draft.attachments.map((file) => h('li', {}, `Forwarded: ${file.filename}`)));
		} catch (error) {
			status.error(error);
		}
	})();

	form.addEventListener('submit', (event) => {
		event.preventDefault();
		void busy(send, async () => {
			try {
				const attached = await Promise.all(
					[...(files.files ?? [])].map(async (file) => ({
						filename: file.name,
						contentType: file.type || 'application/octet-stream',
						content: await blobBase64(file),
					})),
				);
				// An empty field is left out: a reply without To goes to the message's Reply-To or sender.
				const recipients = (field: string, input: HTMLInputElement) => {
					const list = input.value
						.split(',')
						.map((entry) => entry.trim())
						.filter(Boolean);
					return list.length ? { [field]: list } : {};
				};
				const sent = await sendJson<Sent>('POST', '/api/outgoing-messages', {
					from: from.value,
					...recipients('to', to),
					...recipients('cc', cc),
					...recipients('bcc', bcc),
					subject: subject.value,
					text: body.value,
					...(html.value.trim() ? { html: html.value } : {}),
					...(draft.inReplyTo ? { inReplyTo: draft.inReplyTo } : {}),
					attachments: [...draft.attachments, ...attached],
				});
				clearFormErrors(form);
				showCredits(sent.creditsRemaining);
				// The warnings (no subject, a copy kept here rather than sent out) are what the sender would not see otherwise.
				status.ok(
					[
						`Sent to ${sent.recipients.length === 1 ? '1 recipient' : `${sent.recipients.length} recipients`}; see Sent for its delivery.`,
						...sent.warnings.map((warning) => `Note: ${warning}.`),
					].join(' '),
				);
				form.reset();
				draft = { ...EMPTY, from: from.value };
				carried.replaceChildren();
			} catch (error) {
				showFormError(form, status, error);
			}
		});
	});
}

/** The form filled from a received message: a reply quotes it, a forward carries its text and attachments. */
async function startFrom(mode: 'reply' | 'forward', address: string, id: string): Promise<Draft> {
	const base = `/api/addresses/${enc(address)}/messages/${enc(id)}`;
	const [message, text] = await Promise.all([
		getJson<MessageRecord>(base),
		getText(`/api/text/${enc(address)}/${enc(id)}`).catch(() => ''),
	]);
	const subject = message.subject || '';
	if (mode === 'reply') {
		const quoted = text
			.split('\n')
			.map((line) => `> ${line}`)
			.join('\n');
		return {
			from: message.inbox,
			to: message.from[0]?.address ?? '',
			subject: /^re:/i.test(subject) ? subject : `Re: ${subject}`,
			text: `\n\nOn ${new Date(message.received).toUTCString()}, ${formatAddresses(message.from)} wrote:\n${quoted}`,
			inReplyTo: message._id,
			attachments: [],
		};
	}
	const metas = message.attachments?.length ? await getJson<AttachmentMeta[]>(`${base}/attachments`) : [];
	const attachments = await Promise.all(
		metas.map(async (meta) => ({
			filename: meta.fileName || `${meta.checksum} (${formatBytes(meta.length)})`,
			contentType: meta.contentType,
			content: base64Of(new Uint8Array(await (await request(`${base}/attachments/${enc(meta.checksum)}`)).arrayBuffer())),
		})),
	);
	const header = [
		'---------- Forwarded message ----------',
		`From: ${formatAddresses(message.from)}`,
		`Date: ${new Date(message.received).toUTCString()}`,
		`Subject: ${subject}`,
		`To: ${formatAddresses(message.to)}`,
	];
	return {
		from: message.inbox,
		to: '',
		subject: /^fwd?:/i.test(subject) ? subject : `Fwd: ${subject}`,
		text: `\n\n${header.join('\n')}\n\n${text}`,
		attachments,
	};
}
