import type { AgedMessage, RetentionCandidates } from '../store';
import type { SqlDb } from './sql-db';

export class SqlRetentionCandidates implements RetentionCandidates {
	constructor(private readonly db: SqlDb) {}

	oldest(afterSeq: number, limit: number): Promise<AgedMessage[]> {
		return this.db.rows<AgedMessage>('SELECT seq, received, saved_by AS "savedBy" FROM messages WHERE seq > $1 ORDER BY seq LIMIT $2', [
			afterSeq,
			limit,
		]);
	}

	async inboxesOver(max: number): Promise<string[]> {
		// Counts starred mail too, so it reads only the inbox index; the trim itself skips starred messages.
		const rows = await this.db.rows<{ inbox: string }>('SELECT inbox FROM messages GROUP BY inbox HAVING count(*) > $1 ORDER BY inbox', [
			max,
		]);
		return rows.map((row) => row.inbox);
	}

	async beyond(inbox: string, keep: number, limit: number): Promise<number[]> {
		const rows = await this.db.rows<{ seq: number }>(
			'SELECT seq FROM messages WHERE inbox = $1 AND saved_by IS NULL ORDER BY received DESC, seq DESC LIMIT $2 OFFSET $3',
			[inbox, limit, keep],
		);
		return rows.map((row) => row.seq);
	}
}
