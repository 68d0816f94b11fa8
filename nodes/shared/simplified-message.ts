import type { IDataObject } from 'n8n-workflow';

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
	'text',
	'strippedText',
	'html',
	'attachments',
	'codes',
	'auth',
	'threadId',
	'received',
];

/** The fields of a payload a simplified item keeps: the Mailroom Trigger's item, and the start of Message → Get's. */
export const simplifiedMessage = (payload: IDataObject): IDataObject =>
	Object.fromEntries(SIMPLE_FIELDS.filter((field) => field in payload).map((field) => [field, payload[field]]));
