import type { StoredAnnouncement } from '../store';
import type { Db } from './database';

/** The channel nodes tell each other of the mail they store on. */
export const CHANNEL = 'mailroom_stored';

/** NOTIFY takes payloads of less than 8000 bytes (as the server is built by default); a margin for safety. */
const PAYLOAD_LIMIT = 7900;

/**
 * The announcement as NOTIFY payloads: one, or when its messages would make it too long, several, each with some of the
 * messages (and the same flags: waking a queue twice costs a query, missing it a delay).
 */
export function payloadsOf(announcement: StoredAnnouncement): string[] {
	const whole = JSON.stringify(announcement);
	if (Buffer.byteLength(whole) <= PAYLOAD_LIMIT) return [whole];
	const empty = Buffer.byteLength(JSON.stringify({ ...announcement, messages: [] }));
	const payloads: string[] = [];
	let messages: StoredAnnouncement['messages'] = [];
	let length = empty;
	for (const message of announcement.messages) {
		const size = Buffer.byteLength(JSON.stringify(message)) + 1;
		if (messages.length && length + size > PAYLOAD_LIMIT) {
			payloads.push(JSON.stringify({ ...announcement, messages }));
			messages = [];
			length = empty;
		}
		messages.push(message);
		length += size;
	}
	payloads.push(JSON.stringify({ ...announcement, messages }));
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
		return typeof parsed.node === 'string' && Array.isArray(parsed.messages) ? (parsed as StoredAnnouncement) : undefined;
	} catch {
		return undefined;
	}
}
