import type { Statement } from 'better-sqlite3';
import type { Db } from './database';

import type { AgedMessage, RetentionCandidates } from '../store';

export class SqliteRetentionCandidates implements RetentionCandidates {
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

	async oldest(afterSeq: number, limit: number): Promise<AgedMessage[]> {
		return this.oldestAfter.all(afterSeq, limit) as AgedMessage[];
	}

	async inboxesOver(max: number): Promise<string[]> {
		return this.overfullInboxes.all(max) as string[];
	}

	async beyond(inbox: string, keep: number, limit: number): Promise<number[]> {
		return this.beyondLimit.all(inbox, limit, keep) as number[];
	}
}
