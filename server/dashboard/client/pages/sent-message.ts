import { enc, getJson, type OutgoingRecipient, type OutgoingRecord, type Suppression } from '../api.js';
import { formatTime, h, pageHeading, StatusLine, table, type Child } from '../dom.js';
import { refreshEvery } from '../poll.js';

/**
 * `#/sent/<id>`: one sent message (GET /api/outgoing-messages/:id) with each recipient's delivery status, the status code
 * and diagnostic of the last report on it, a link to that report (mail in the sender's inbox), and whether the address is
 * now suppressed; re-read while open, as reports can come days later.
 */
export function sentMessagePage(root: HTMLElement, id: string): () => void {
	const status = new StatusLine();
	const body = h('div', {}, h('p', { class: 'hint' }, 'Loading…'));
	root.append(h('p', {}, h('a', { href: '#/sent' }, '← Back to Sent')), pageHeading('Sent message'), status.element, body);
	let shown = '';
	const refresh = async () => {
		try {
			const [message, suppressions] = await Promise.all([
				getJson<OutgoingRecord>(`/api/outgoing-messages/${enc(id)}`),
				getJson<Suppression[]>('/api/suppressions'),
			]);
			const json = JSON.stringify([message, suppressions]);
			if (json === shown) return;
			shown = json;
			const suppressed = new Set(suppressions.map((entry) => entry.address));
			body.replaceChildren(summary(message), recipientTable(message, suppressed));
		} catch (error) {
			status.error(error);
		}
	};
	return refreshEvery(refresh);
}

function summary(message: OutgoingRecord): Node {
	const pairs: [string, Child][] = [
		['Subject', message.subject || '(no subject)'],
		['From', message.from],
		['To', message.to.join(', ')],
		['Cc', message.cc.join(', ')],
		['Bcc', message.bcc.join(', ')],
		['Sent', formatTime(message.sent)],
		['Status', h('span', { class: `badge ${message.status}` }, message.status)],
		['Attempts', String(message.attempts)],
		['Last error', message.lastError],
	];
	return h(
		'dl',
		{ class: 'summary' },
		pairs.filter(([, value]) => value).flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
	);
}

function recipientTable(message: OutgoingRecord, suppressed: Set<string>): Node {
	return table(
		'Recipients and their delivery status',
		['Recipient', 'Status', 'Code', 'Diagnostic', 'Report'],
		message.recipients.map((recipient) => [
			h(
				'span',
				{},
				`${recipient.address} (${recipient.field}, ${recipient.route})`,
				suppressed.has(recipient.address) &&
					h('span', { class: 'hint' }, ' · ', h('a', { href: '#/account/suppression-list' }, 'suppressed')),
			),
			h('span', { class: `badge ${recipient.status}` }, recipient.status),
			recipient.statusCode ?? '—',
			diagnosticOf(recipient),
			recipient.bounceMessageId
				? h(
						'span',
						{},
						h('a', { href: `#/mail/${enc(message.from)}/${enc(recipient.bounceMessageId)}` }, 'Open the report'),
						recipient.reportingMta ? h('span', { class: 'hint' }, ` from ${recipient.reportingMta}`) : '',
					)
				: '—',
		]),
	);
}

/** What the remote server said (the report's Diagnostic-Code), else the relay's reply of a failure, else the note of its route. */
function diagnosticOf(recipient: OutgoingRecipient): Child {
	const words = recipient.diagnostic ?? recipient.error;
	if (words) return words;
	return recipient.note ? h('span', { class: 'hint' }, recipient.note) : '—';
}
