import type { AddressObject, AttachmentMeta } from '../schemas/message';
import type { SpooledBytes } from '../bytes/spooled-bytes';
import type { MessageBody } from '../bytes/message-body';

export interface ParsedAttachment extends AttachmentMeta {
	/** In memory, or (for a spooled message) in a file beside it. */
	content: Uint8Array | SpooledBytes;
}

/** What parsing a raw message yields; shared by every recipient's record. */
export interface ParsedMail {
	subject: string;
	from: AddressObject[];
	to: AddressObject[];
	cc: AddressObject[] | null;
	bcc: AddressObject[] | null;
	/** The Reply-To addresses, null when the message has none. */
	replyTo: AddressObject[] | null;
	messageId: string;
	/** ISO 8601 from the Date header, null when missing or invalid. */
	date: string | null;
	priority: 'normal' | 'high' | 'low';
	/** Header lines in order, lower-case names, unfolded values. */
	headers: [string, string][];
	/** The text part, or the HTML converted to text when there is none (a large body of a spooled message: its file). */
	text: MessageBody;
	html: MessageBody | null;
	links: string[];
	spam: number;
	attachments: ParsedAttachment[];
	/** What the person wrote: the text without quoted earlier messages and the signature (see reply-text.ts). */
	strippedText: string;
	strippedSignature: string | null;
	/** One-time codes of the subject and text, most likely first (see codes.ts). */
	codes: string[];
}
