import type { MessageContent } from '../mail/message-content';
import type { AddressObject, MessageRecord } from '../schemas/message';
import type { MessageAuth } from '../schemas/sender-auth';
import type { StreamedString } from '../bytes/streamed-json';
import type { AttachmentLink } from '../schemas/payload';
import { bodyProps } from './body-props';

/**
 * The JSON posted to a webhook (and to each webhook subscription): every field of spec 2.3, then `html`, `cc`,
 * `attachments` and `threadId` (the text, HTML and raw source streamed, see BodyProps).
 */
export interface WebhookPayload {
	text: StreamedString;
	headers: Record<string, string>;
	subject: string;
	messageId: string;
	priority: string;
	from: AddressObject[];
	to: AddressObject[];
	date: string;
	receivedDate: string;
	originalInbox: string;
	inbox: string;
	domain: string;
	encryptedInbox: string;
	raw: StreamedString;
	received: string;
	_id: string;
	ip: string;
	html: StreamedString | null;
	cc: AddressObject[] | null;
	attachments: AttachmentLink[];
	auth: MessageAuth | null;
	strippedText: string | null;
	strippedSignature: string | null;
	codes: string[];
	links: string[];
	threadId: string;
}

export async function buildPayload(
	record: MessageRecord,
	content: MessageContent,
	encryptedInbox: string,
	publicUrl: string,
): Promise<WebhookPayload> {
	const { text, html, headers, raw, attachments } = await bodyProps(record, content, publicUrl);
	return {
		text,
		headers,
		subject: record.subject,
		messageId: content.messageId,
		priority: content.priority,
		from: record.from,
		to: record.to,
		// A message without a valid Date header is dated when it was received.
		date: content.date ?? record.received,
		receivedDate: record.received,
		originalInbox: record.originalInbox,
		inbox: record.inbox,
		domain: record.domain,
		encryptedInbox,
		raw,
		received: record.received,
		_id: record._id,
		ip: record.ip,
		html,
		cc: record.cc,
		attachments,
		auth: record.auth,
		strippedText: record.strippedText,
		strippedSignature: record.strippedSignature,
		codes: record.codes,
		links: record.links,
		threadId: record.threadId,
	};
}
