import type { Statement } from 'better-sqlite3';
import type { Db } from './database';

/** A message as the retention sweep judges it by age. */
export interface AgedMessage {
	seq: number;
	received: number;
	savedBy: string | null;
}

/** The messages the retention sweep may delete: too old, or beyond an inbox's limit (it deletes them with MessageDeletion). */
export class RetentionCandidates {
	private readonly oldestAfter: Statement;
	private readonly overfullInboxes: Statement;
	private readonly beyondLimit: Statement;

	constructor(db: Db) {
		this.oldestAfter = db.prepare('SELECT seq, received, saved_by AS savedBy FROM messages WHERE seq > ? ORDER BY seq LIMIT ?');
		// Counts starred mail too, so it reads only the inbox index; the trim itself skips starred messages.
		this.overfullInboxes = db.prepare('SELECT inbox FROM messages GROUP BY inbox HAVING count(*) > ?').pluck();
		this.beyondLimit = db
			.prepare('SELECT seq FROM messages WHERE inbox = ? AND saved_by IS NULL ORDER BY received DESC, seq DESC LIMIT ? OFFSET ?')
			.pluck();
	}

	/** Up to `limit` messages in the order they arrived (seq), starting after `seq`. */
	oldest(afterSeq: number, limit: number): AgedMessage[] {
		return this.oldestAfter.all(afterSeq, limit) as AgedMessage[];
	}

	/** Inboxes holding more than `max` messages, starred ones counted. */
	inboxesOver(max: number): string[] {
		return this.overfullInboxes.all(max) as string[];
	}

	/** Up to `limit` unstarred messages of an inbox beyond its newest `keep`, newest first. */
	beyond(inbox: string, keep: number, limit: number): number[] {
		return this.beyondLimit.all(inbox, limit, keep) as number[];
	}
}
