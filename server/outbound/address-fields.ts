import addressparser from 'nodemailer/lib/addressparser';
import { parseEmailAddress, type EmailAddress } from '../mail/email-address';
import type { RecipientField } from '../schemas/outgoing';
import { SendError } from './send-error';

export interface NamedAddress extends EmailAddress {
	name: string;
}

export interface Recipient extends NamedAddress {
	field: RecipientField;
}

/**
 * The addresses of one address field of a send (one, a comma-separated list, or an array; "Name <address>" allowed).
 * A line break is refused outright: read on, it would start a second header or split the list where the sender did not.
 */
export function parseAddressField(field: string, value: string | string[]): NamedAddress[] {
	const items = Array.isArray(value) ? value : [value];
	if (items.some((item) => /[\r\n]/.test(item)))
		throw new SendError(400, `${field} contains a line break (CR or LF); an address never does`, field);
	return items
		.flatMap((item) => addressparser(item, { flatten: true }))
		.map((entry) => {
			const email = parseEmailAddress(entry.address);
			if (!email) throw new SendError(400, `${field} "${entry.address || entry.name}" is not an email address`, field);
			return { ...email, name: entry.name };
		});
}

/** Every address of to, cc and bcc once, in the first of those fields that names it (so it is charged once). */
export function distinctRecipients(fields: Record<RecipientField, NamedAddress[]>): Recipient[] {
	const recipients = new Map<string, Recipient>();
	for (const field of ['to', 'cc', 'bcc'] as const) {
		for (const address of fields[field]) if (!recipients.has(address.address)) recipients.set(address.address, { ...address, field });
	}
	return [...recipients.values()];
}
