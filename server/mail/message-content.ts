import type { StoredBytes } from '../bytes/stored-bytes';
import type { AttachmentMeta } from '../schemas/message';

/**
 * Text, HTML, headers and the raw source of a message: what the record leaves out. The bodies, the source and the
 * attachments are read when asked for: a large message's are stored in pieces, and most readers want only one of them.
 */
export interface MessageContent {
	messageId: string;
	date: string | null;
	priority: string;
	headers: [string, string][];
	/** The text body whole (a large one joined from its pieces). */
	text(): Promise<string>;
	/** The HTML body whole; null without an HTML part. */
	html(): Promise<string | null>;
	/** The text's UTF-8 bytes as stored (a large one in pieces), for readers that stream it. */
	textBytes(): Promise<StoredBytes>;
	/** The HTML's UTF-8 bytes as stored, as textBytes; null without an HTML part. */
	htmlBytes(): Promise<StoredBytes | null>;
	/** The source as received, as stored (a large one in pieces). */
	raw(): Promise<StoredBytes>;
	/** What the message's attachments are (their bytes stay in the store), in order. */
	attachments(): Promise<AttachmentMeta[]>;
}
