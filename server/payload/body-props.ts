import type { MessageContent } from '../mail/message-content';
import { storedPieces, type StoredBytes } from '../bytes/stored-bytes';
import { crlfPieces, utf8Pieces } from '../bytes/text-pieces';
import { StreamedString } from '../bytes/streamed-json';

/**
 * text, headers and raw: what webhook payloads and websocket frames add to a message record. The text and raw source are
 * streamed (see jsonPieces): a large message's are megabytes, read from its stored pieces as the JSON is made.
 */
export interface BodyProps {
	text: StreamedString;
	headers: Record<string, string>;
	raw: StreamedString;
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
export function crlfTextPieces(raw: StoredBytes): Generator<string> {
	return crlfPieces(utf8Pieces(storedPieces(raw)));
}

export function bodyProps(content: MessageContent): BodyProps {
	return {
		text: new StreamedString(() => utf8Pieces(storedPieces(content.textBytes()))),
		headers: headerObject(content.headers),
		raw: new StreamedString(() => crlfTextPieces(content.raw())),
	};
}
