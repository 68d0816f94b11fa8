import { MailParser } from 'mailparser';

/** One header field as mailsplit lists it: its lower-cased name, and the whole field as sent (name, value, folding). */
export interface HeaderLine {
	key: string;
	line: string;
}

/** mailparser's header decoding (addresses, encoded words, dates, priority), without its streams. */
interface HeaderDecoder {
	processHeaders(lines: HeaderLine[]): Map<string, unknown>;
}

/** Decodes header fields as mailparser does for a whole message, so what is read from them matches a parse. */
export const headerDecoder = new MailParser() as unknown as HeaderDecoder;
