import { simpleParser } from 'mailparser';
import type { AddressObject } from '../schemas/message';
import { flattenAddresses, PARSER_OPTIONS } from './parse-message';

/** The addresses of a stored Reply-To value, decoded (encoded words, groups flattened) as a message's From is at ingest. */
export async function replyToAddresses(value: string): Promise<AddressObject[]> {
	const mail = await simpleParser(Buffer.from(`Reply-To: ${value}\r\n\r\n`), PARSER_OPTIONS);
	return flattenAddresses(mail.replyTo);
}
