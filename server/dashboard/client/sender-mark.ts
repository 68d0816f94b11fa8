import type { MessageRecord } from './api.js';
import { h, table } from './dom.js';

type MessageAuth = NonNullable<MessageRecord['auth']>;

/** What the verification of a sender comes to, in a word or two, and the badge class that colours it. */
function verdict(auth: MessageAuth): { label: string; tone: 'verified' | 'forged' | 'unverified'; why: string } {
	if (auth.authenticated) {
		return { label: 'Verified sender', tone: 'verified', why: `DMARC ${auth.dmarc.result}, SPF ${auth.spf.result}` };
	}
	if (auth.dmarc.result === 'fail' || auth.spf.result === 'fail') {
		return { label: 'Sender failed checks', tone: 'forged', why: `DMARC ${auth.dmarc.result}, SPF ${auth.spf.result}` };
	}
	return { label: 'Sender not verified', tone: 'unverified', why: `DMARC ${auth.dmarc.result}, SPF ${auth.spf.result}` };
}

/** A badge saying whether the sender is who the From line says (nothing for mail that was not verified). */
export function senderMark(message: MessageRecord): Node | null {
	if (!message.auth) return null;
	const { label, tone, why } = verdict(message.auth);
	return h('span', { class: `badge ${tone}`, title: why }, label);
}

/** Every result of the sender's verification, one method a row: the Headers tab shows it above the headers. */
export function authTable(message: MessageRecord): Node {
	const auth = message.auth;
	if (!auth) return h('p', { class: 'hint' }, 'The sender of this message was not verified.');
	const rows: [string, string, string][] = [
		['SPF', auth.spf.result, auth.spf.domain ?? ''],
		...auth.dkim.map((signature): [string, string, string] => [
			'DKIM',
			signature.result,
			[signature.domain, signature.selector && `selector ${signature.selector}`, signature.aligned ? 'aligned with From' : '']
				.filter(Boolean)
				.join(', '),
		]),
		...(auth.dkim.length === 0 ? [['DKIM', 'none', 'no signature'] as [string, string, string]] : []),
		['DMARC', auth.dmarc.result, [auth.dmarc.domain, auth.dmarc.policy && `policy ${auth.dmarc.policy}`].filter(Boolean).join(', ')],
		['ARC', auth.arc.result, ''],
	];
	return table(
		'Sender authentication',
		['Check', 'Result', 'Details'],
		rows.map(([check, result, details]) => [check, h('span', { class: `badge auth-${result}` }, result), details]),
	);
}
