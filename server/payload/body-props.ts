import type { MessageContent } from '../mail/message-content';
import type { MessageRecord } from '../schemas/message';
import type { AttachmentLink } from '../schemas/payload';
import { storedPieces, type StoredBytes } from '../bytes/stored-bytes';
import { crlfPieces, utf8Pieces } from '../bytes/text-pieces';
import { StreamedString } from '../bytes/streamed-json';

/**
 * What webhook payloads and websocket frames add to a message record: its text, HTML, headers and raw source, and its
 * attachments with their download URLs. The text, HTML and raw source are streamed (see jsonPieces): a large message's are
 * megabytes, read from its stored pieces as the JSON is made.
 */
export interface BodyProps {
	text: StreamedString;
	/** The HTML body as received; null without one. */
	html: StreamedString | null;
	headers: Record<string, string>;
	raw: StreamedString;
	attachments: AttachmentLink[];
}

/**
 * Header lines as an object with lower-case names and string values. A header that occurs more
 * than once (received, dkim-signature...) keeps every value, in order, joined with "\n".
 */
export function headerObject(lines: [string, string][]): Record<string, string> {
	const headers = new Map<string, string>();
	for (const [name, value] of lines) headers.set(name, headers.has(name) ? `${headers.get(name)}\n${value}` : value);
	// fromEntries defines own properties, so a header named __proto__ stays a header.
	return Object.fromEntries(headers);
}

/** The raw message as text with CRLF line breaks, whatever the sender used, a piece at a time. */
export function crlfTextPieces(raw: StoredBytes): AsyncGenerator<string> {
	return crlfPieces(utf8Pieces(storedPieces(raw)));
}

/** Where the API serves an attachment of a stored message; `publicUrl` is where clients reach this server. */
export function attachmentUrl(publicUrl: string, record: MessageRecord, checksum: string): string {
	return `${publicUrl}/api/addresses/${encodeURIComponent(record.inbox)}/messages/${record._id}/attachments/${checksum}`;
}

const utf8Text = (bytes: StoredBytes) => new StreamedString(() => utf8Pieces(storedPieces(bytes)));

export async function bodyProps(record: MessageRecord, content: MessageContent, publicUrl: string): Promise<BodyProps> {
	const [text, html, raw, attachments] = await Promise.all([
		content.textBytes(),
		content.htmlBytes(),
		content.raw(),
		content.attachments(),
	]);
	return {
		text: utf8Text(text),
		html: html === null ? null : utf8Text(html),
		headers: headerObject(content.headers),
		raw: new StreamedString(() => crlfTextPieces(raw)),
		attachments: attachments.map((attachment) => ({
			filename: attachment.fileName,
			contentType: attachment.contentType,
			size: attachment.length,
			checksum: attachment.checksum,
			contentId: attachment.contentId,
			url: attachmentUrl(publicUrl, record, attachment.checksum),
		})),
	};
}
