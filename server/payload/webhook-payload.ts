import type { MessageContent } from '../mail/message-content';
import type { MessageRecord } from '../schemas/message';
import type { AddressObject } from '../schemas/message';
import { bodyProps } from './body-props';
import type { StreamedString } from '../bytes/streamed-json';

/** The JSON posted to a webhook: exactly the fields of spec 2.3 (the text and raw source streamed, see BodyProps). */
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
}

export function buildPayload(record: MessageRecord, content: MessageContent, encryptedInbox: string): WebhookPayload {
	const { text, headers, raw } = bodyProps(content);
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
	};
}
