import type { StoredAnnouncement } from '../store';
import type { Db } from './database';

/** The channel nodes tell each other of the mail they store on. */
export const CHANNEL = 'mailroom_stored';

/** NOTIFY takes payloads of less than 8000 bytes (as the server is built by default); a margin for safety. */
const PAYLOAD_LIMIT = 7900;

/**
 * The announcement as NOTIFY payloads: one, or when its messages and events would make it too long, several, each with
 * some of them (and the same flags: waking a queue twice costs a query, missing it a delay).
 */
export function payloadsOf(announcement: StoredAnnouncement): string[] {
	const whole = JSON.stringify(announcement);
	if (Buffer.byteLength(whole) <= PAYLOAD_LIMIT) return [whole];
	const { messages, events = [] } = announcement;
	const bare = { ...announcement, messages: [], ...(announcement.events && { events: [] }) };
	return [
		...inPieces(messages, bare, (some) => ({ ...bare, messages: some })),
		...inPieces(events, bare, (some) => ({ ...bare, events: some })),
	];
}

/** `items` in as few payloads as fit, each `payloadOf` some of them; none when there are no items. */
function inPieces<T>(items: T[], bare: StoredAnnouncement, payloadOf: (some: T[]) => StoredAnnouncement): string[] {
	const empty = Buffer.byteLength(JSON.stringify(bare));
	const payloads: string[] = [];
	let some: T[] = [];
	let length = empty;
	for (const item of items) {
		const size = Buffer.byteLength(JSON.stringify(item)) + 1;
		if (some.length && length + size > PAYLOAD_LIMIT) {
			payloads.push(JSON.stringify(payloadOf(some)));
			some = [];
			length = empty;
		}
		some.push(item);
		length += size;
	}
	if (some.length) payloads.push(JSON.stringify(payloadOf(some)));
	return payloads;
}

/** Announces inside the caller's transaction: PostgreSQL delivers it when the transaction commits, and never if it rolls back. */
export async function announce(tx: Db, announcement: StoredAnnouncement): Promise<void> {
	await tx.run('SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload', [CHANNEL, payloadsOf(announcement)]);
}

/** A payload heard on the channel, or undefined when it is not an announcement. */
export function announcementIn(payload: string): StoredAnnouncement | undefined {
	try {
		const parsed = JSON.parse(payload) as Partial<StoredAnnouncement>;
		const valid =
			typeof parsed.node === 'string' && Array.isArray(parsed.messages) && (parsed.events === undefined || Array.isArray(parsed.events));
		return valid ? (parsed as StoredAnnouncement) : undefined;
	} catch {
		return undefined;
	}
}
