import type { StoredBytes } from '../bytes/stored-bytes';
import type { AttachmentMeta } from '../schemas/message';

/** Text, HTML, headers and the raw source of a message: what the record leaves out. */
export interface MessageContent {
	messageId: string;
	date: string | null;
	priority: string;
	headers: [string, string][];
	/** Read when asked for: a large message's text and HTML are stored in pieces, and most readers want only one of them. */
	readonly text: string;
	readonly html: string | null;
	/** The text's UTF-8 bytes as stored (a large one in pieces), for readers that stream it. */
	textBytes(): StoredBytes;
	/** The HTML's UTF-8 bytes as stored, as textBytes; null without an HTML part. */
	htmlBytes(): StoredBytes | null;
	/** The source as received, as stored (a large one in pieces): read only when asked for. */
	raw(): StoredBytes;
	/** What the message's attachments are (their bytes stay in the store), in order. */
	attachments(): AttachmentMeta[];
}
