import type { IDataObject } from 'n8n-workflow';

import { parseAddressList, type MailAddress } from './address-header';

/**
 * What a simplified item keeps of a message's webhook payload: who, what, when, the bodies and the attachment list, what
 * the person wrote without the quoted thread, the codes, whether the sender is who it says, and the conversation it belongs to.
 */
const SIMPLE_FIELDS = [
	'_id',
	'inbox',
	'from',
	'to',
	'cc',
	'subject',
	'date',
	'messageId',
	'text',
	'strippedText',
	'html',
	'attachments',
	'codes',
	'auth',
	'threadId',
	'received',
];

/** The first sender's address and name, flat, for expressions and AI tools that should not dig into a list. */
export const senderFields = (from: unknown) => {
	const [first] = Array.isArray(from) ? (from as MailAddress[]) : [];
	return { fromAddress: first?.address ?? null, fromName: first?.name ?? null };
};

/** The Reply-To addresses as `from` gives addresses, or null when the message has none. */
export const replyToOf = (header: unknown): MailAddress[] | null => {
	const value = Array.isArray(header) ? header.join(', ') : header;
	if (typeof value !== 'string' || !value.trim()) return null;
	const addresses = parseAddressList(value);
	return addresses.length ? addresses : null;
};

/** The fields of a payload a simplified item keeps: the Mailroom Trigger's item, and the start of Message → Get's. */
export function simplifiedMessage(payload: IDataObject): IDataObject {
	const kept = Object.fromEntries(SIMPLE_FIELDS.filter((field) => field in payload).map((field) => [field, payload[field]]));
	const headers = (payload.headers ?? {}) as IDataObject;
	return { ...kept, ...senderFields(payload.from), replyTo: replyToOf(headers['reply-to']) };
}
