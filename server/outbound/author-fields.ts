import emailAddresses from 'email-addresses';
import { SendError } from './send-error';

/**
 * The fields of a submitted message that say who wrote or sent it, read under RFC 5322's own grammar (with RFC 6532's UTF-8,
 * and the obsolete forms RFC 5322 says a reader must take). A lenient parser and a strict one can read one field
 * differently: `From: bob@x.test<CRLF> victim@x.test` is bob's address named "victim@x.test" to a lenient parser, two
 * mailboxes to Python's; RFC 5322 reads it as neither (mailboxes need a comma between them), so it is refused.
 * (email-addresses implements the RFC's ABNF; mailparser's reading is checked too, by the caller.)
 */

/** The author fields, as their names are written in messages, with the production each one is. */
const AUTHOR_FIELDS = {
	from: { name: 'From', list: true },
	sender: { name: 'Sender', list: false },
	'resent-from': { name: 'Resent-From', list: true },
	'resent-sender': { name: 'Resent-Sender', list: false },
} as const;

export type AuthorField = keyof typeof AUTHOR_FIELDS;

export const isAuthorField = (key: string): key is AuthorField => Object.hasOwn(AUTHOR_FIELDS, key);

/** What a refusal shows of a field's value: enough to find it, never a whole long header. */
const SHOWN = 120;

/**
 * The lower-cased addresses of an author field (`line`: the whole field as sent, name and folding included, its bytes
 * read as latin1); refused (400) when RFC 5322 cannot read it as the field's mailbox list (From, Resent-From) or mailbox
 * (Sender, Resent-Sender), or it names no address (an empty group).
 */
export function authorAddresses(key: AuthorField, line: string): string[] {
	const { name, list } = AUTHOR_FIELDS[key];
	const value = Buffer.from(line.slice(line.indexOf(':') + 1), 'latin1')
		.toString('utf8')
		.replace(/\r?\n$/, '')
		// Unfolding (RFC 5322 2.2.3): a line break followed by a blank is the blank alone.
		.replace(/\r?\n(?=[ \t])/g, '');
	const options = { input: value, rfc6532: true };
	const parsed = list ? emailAddresses.parseFrom(options) : [emailAddresses.parseSender(options)];
	if (!parsed || parsed.includes(null)) {
		const shown = value.trim().length > SHOWN ? `${value.trim().slice(0, SHOWN)}…` : value.trim();
		throw new SendError(
			400,
			`The ${name} header "${shown}" is not ${list ? 'a list of addresses' : 'one address'} as RFC 5322 writes ` +
				(list ? 'them (a comma between addresses, ' : 'it (') +
				'a display name before <address>)',
		);
	}
	const addresses = parsed.flatMap((entry) => (entry!.type === 'group' ? entry!.addresses : [entry!])).map((m) => m.address.toLowerCase());
	if (addresses.length === 0) throw new SendError(400, `The ${name} header names no address`);
	return addresses;
}
