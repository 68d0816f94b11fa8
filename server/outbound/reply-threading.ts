import type { AddressStore, MessageStore } from '../store/store';
import { parseEmailAddress } from '../mail/email-address';
import { replyToAddresses } from '../parse/address-header';
import type { NamedAddress } from './address-fields';
import { SendError } from './send-error';

/** What a reply takes from the message it answers. */
export interface Thread {
	/** The original's Message-ID; undefined when it had none. */
	inReplyTo: string | undefined;
	references: string[];
	/** Where the reply goes when the send names no `to`: the original's Reply-To addresses, else its From. */
	recipients: NamedAddress[];
	/** "Re: " and the original subject (once: a subject that starts with "Re:" already is kept). */
	subject: string;
	/** The original's To and Cc recipients, whom a reply to all addresses too (but the account's own addresses). */
	others: { to: NamedAddress[]; cc: NamedAddress[] };
}

/** A References header keeps the thread's first message and the latest ones (as RFC 5537 suggests for long threads). */
const MAX_REFERENCES = 50;
/** A Reply-To longer than this is not decoded (address parsing costs microseconds per byte); the send must name `to`. */
const MAX_REPLY_TO = 16_000;

const MESSAGE_ID = /<[^<>\s]+>/g;
const messageIds = (value: string | undefined) => value?.match(MESSAGE_ID) ?? [];

/**
 * RFC 5322 3.6.4: the original's References (or, lacking them, its In-Reply-To when that names one message) followed by
 * its Message-ID.
 */
function referencesOf(headers: Map<string, string>, messageId: string | undefined): string[] {
	const parents = messageIds(headers.get('references'));
	const answered = messageIds(headers.get('in-reply-to'));
	const references = [...(parents.length ? parents : answered.length === 1 ? answered : []), ...(messageId ? [messageId] : [])];
	return references.length > MAX_REFERENCES ? [references[0], ...references.slice(1 - MAX_REFERENCES)] : references;
}

const validAddresses = (addresses: { address: string; name: string }[]): NamedAddress[] =>
	addresses.flatMap(({ address, name }) => {
		const email = parseEmailAddress(address);
		return email ? [{ ...email, name }] : [];
	});

/**
 * The message `id` answered by a send of `accountId`: it must be in one of the account's inboxes (its private addresses, and
 * every address of its domains); any other id is refused as not found, so ids of others' mail reveal nothing.
 */
export async function threadOf(id: string, accountId: string, messages: MessageStore, addresses: AddressStore): Promise<Thread> {
	const place = await messages.placeOf(id);
	const content =
		place && (await addresses.ownerOfInbox(place.inbox, place.domain)) === accountId && (await messages.content(place.inbox, id));
	const record = content && (await messages.get(place.inbox, id));
	if (!content || !record) {
		throw new SendError(
			404,
			`No message ${id} in your inboxes for inReplyTo (a reply answers mail of your private addresses and domains, by its _id)`,
		);
	}
	// Stored header names are lower-cased; the first of each name counts.
	const headers = new Map<string, string>();
	for (const [name, value] of content.headers) if (!headers.has(name)) headers.set(name, value);
	const messageId = messageIds(content.messageId)[0];
	const replyTo = headers.get('reply-to');
	if (replyTo !== undefined && replyTo.length > MAX_REPLY_TO) {
		throw new SendError(400, `The Reply-To of message ${id} (inReplyTo) is too long to read: give the recipients in to`, 'to');
	}
	const fromReplyTo = replyTo === undefined ? [] : validAddresses(await replyToAddresses(replyTo));
	return {
		inReplyTo: messageId,
		references: referencesOf(headers, messageId),
		recipients: fromReplyTo.length ? fromReplyTo : validAddresses(record.from),
		subject: /^\s*re\s*:/i.test(record.subject) ? record.subject : `Re: ${record.subject}`.trimEnd(),
		others: { to: validAddresses(record.to), cc: validAddresses(record.cc ?? []) },
	};
}
