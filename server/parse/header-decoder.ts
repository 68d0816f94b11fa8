import { MailParser } from 'mailparser';

/**
 * Text read from a message's headers (a subject, an address or a name, a file name, a header value) with U+0000 as U+FFFD:
 * PostgreSQL text cannot hold U+0000, so a record reads back the same on either engine. The bodies and the raw source,
 * stored as bytes, keep theirs.
 */
export const withoutNul = (text: string): string => (text.includes('\0') ? text.replaceAll('\0', '\uFFFD') : text);

/** One header field as mailsplit lists it: its lower-cased name, and the whole field as sent (name, value, folding). */
export interface HeaderLine {
	key: string;
	line: string;
}

/** mailparser's header decoding (addresses, encoded words, dates, priority), without its streams. */
interface HeaderDecoder {
	processHeaders(lines: HeaderLine[]): Map<string, unknown>;
	/** mailparser's libmime, which decodes RFC 2047 encoded words in any charset it knows. */
	libmime: { decodeWords(value: string): string };
}

/** Decodes header fields as mailparser does for a whole message, so what is read from them matches a parse. */
export const headerDecoder = new MailParser() as unknown as HeaderDecoder;

/**
 * A header value as a person reads it: unfolded, and its RFC 2047 encoded words (`=?UTF-8?Q?…?=`) decoded as mailparser
 * does, U+0000 read as U+FFFD as in every text the parser takes from mail.
 */
export function decodedHeaderValue(value: string): string {
	return withoutNul(headerDecoder.libmime.decodeWords(value.replace(/\r?\n(?=[ \t])/g, '')));
}
