import { hash } from 'node:crypto';

/**
 * Conversations (threads). Messages that answer one another (In-Reply-To, References) share a thread id, per scope: the
 * account that owns the inbox (or that sent the message), or null for public inboxes, so mail of one account never
 * joins another's thread. A message joins the thread of a stored message or sent message of its scope whose Message-ID
 * it names (its own included: the same message stored again); otherwise its thread id is made from the scope and the
 * thread's root, the first message the conversation names, so that a reply stored before its original still shares the
 * thread the original gets when it comes.
 */

/** What threads a message: its own Message-ID and those its In-Reply-To and References name, each `<…>`. */
export interface ThreadHeaders {
	messageId: string | undefined;
	inReplyTo: string[];
	references: string[];
}

/** The scope of a thread: the account whose mail it is, or null for the mail of public inboxes. */
export type ThreadScope = string | null;

/**
 * A message id: `<`, then anything but angle brackets, controls and spaces, then `>`. A header value is not read past
 * one longer than a header line (998 characters). The PostgreSQL schema has the same rule (mailroom_first_id).
 */
// eslint-disable-next-line no-control-regex -- an id holds no control characters (nor spaces)
const MESSAGE_ID = /<[^<>\x00-\x20\x7f]+>/g;
const MAX_ID_LENGTH = 998;
/** Ids looked up per message: its own, its In-Reply-To's and the latest of its References. */
const MAX_CANDIDATES = 50;

/** The message ids `<…>` a header value names, in order. */
export function messageIdsIn(value: string | undefined | null): string[] {
	const ids = value?.match(MESSAGE_ID) ?? [];
	const tooLong = ids.findIndex((id) => id.length > MAX_ID_LENGTH);
	return tooLong < 0 ? ids : ids.slice(0, tooLong);
}

/** A message's own Message-ID as `<…>`: the parser's value, which it writes with angle brackets. */
const ownId = (messageId: string | undefined) => messageIdsIn(messageId)[0];

/** From parsed header pairs (lower-case names, unfolded values; the first of each name counts) and the Message-ID. */
export function threadHeadersOf(messageId: string | undefined, headers: readonly (readonly [string, string])[]): ThreadHeaders {
	const first = (name: string) => headers.find(([key]) => key === name)?.[1];
	return { messageId: ownId(messageId), inReplyTo: messageIdsIn(first('in-reply-to')), references: messageIdsIn(first('references')) };
}

/** How much of a raw message rawThreadHeaders reads, at most. */
export const RAW_THREAD_HEADER_LIMIT = 1024 * 1024;

/** The header of a raw message as far as the empty line (its first `limit` bytes at most), read for its threading fields. */
export function rawThreadHeaders(raw: Buffer, limit = RAW_THREAD_HEADER_LIMIT): ThreadHeaders {
	const start = raw.subarray(0, limit);
	const ends = [start.indexOf('\r\n\r\n'), start.indexOf('\n\n')].filter((at) => at >= 0);
	const head = start.toString('latin1', 0, ends.length ? Math.min(...ends) : start.length);
	const pairs = head
		.replace(/\r?\n(?=[ \t])/g, '')
		.split(/\r?\n/)
		.map((field): [string, string] => {
			const colon = field.indexOf(':');
			return colon < 0 ? ['', ''] : [field.slice(0, colon).trim().toLowerCase(), field.slice(colon + 1)];
		});
	// As the parser reads it on the way in (mailparser adds the angle brackets an id lacks), so a local copy finds its sent message.
	const messageId = pairs.find(([name]) => name === 'message-id')?.[1].trim();
	return threadHeadersOf(messageId && messageId.replace(/^(?!<)/, '<').replace(/(?<!>)$/, '>'), pairs);
}

/**
 * The ids whose stored messages a message joins, the first found counting: its own (the same message again), then those it
 * answers, then its References from the nearest ancestor back.
 */
export function lookupCandidates({ messageId, inReplyTo, references }: ThreadHeaders): string[] {
	const ordered = [...(messageId ? [messageId] : []), ...inReplyTo, ...[...references].reverse()];
	return [...new Set(ordered)].slice(0, MAX_CANDIDATES);
}

/** The first message of the conversation, as the message names it: its References' first, else what it answers, else itself. */
export const threadRoot = ({ messageId, inReplyTo, references }: ThreadHeaders): string | undefined =>
	references[0] ?? inReplyTo[0] ?? messageId;

/**
 * 24 hex characters (96 bits) of SHA-256 over the kind, the scope ('' for public) and the value, one per line. The
 * PostgreSQL schema defines the same function in SQL (mailroom_digest), and SQLite has this one registered under that name.
 */
export function threadDigest(kind: 'thread' | 'message', scope: ThreadScope, value: string): string {
	return hash('sha256', `${kind}\n${scope ?? ''}\n${value}`, 'hex').slice(0, 24);
}

/** The thread id a conversation of `scope` gets from its root (a Message-ID; for a message without any, a record id). */
export const threadIdOf = (scope: ThreadScope, root: string) => threadDigest('thread', scope, root);

/** The key a message is found by in its scope: its Message-ID, digested with the scope. */
export const messageKeyOf = (scope: ThreadScope, messageId: string) => threadDigest('message', scope, messageId);

/** Where a record stands in its scope's threads, as stored beside it. */
export interface RecordThread {
	threadId: string;
	/** Its key (messageKeyOf), or null for a message without a Message-ID. */
	messageKey: string | null;
}

/** The thread of a message of `scope`: the one `found` by its ids, else its root's (else `fallbackRoot`'s, a record id). */
export function recordThread(headers: ThreadHeaders, scope: ThreadScope, found: string | undefined, fallbackRoot: string): RecordThread {
	return {
		threadId: found ?? threadIdOf(scope, threadRoot(headers) ?? fallbackRoot),
		messageKey: headers.messageId === undefined ? null : messageKeyOf(scope, headers.messageId),
	};
}
