import type { ReplyHook, ReplyHookStore } from '../store';
import type { SqlDb } from './sql-db';

interface ReplyHookRow {
	outgoing_id: string;
	account_id: string;
	thread_id: string;
	url: string;
	expires_at: number | string;
}

const toReplyHook = (row: ReplyHookRow): ReplyHook => ({
	outgoingId: row.outgoing_id,
	accountId: row.account_id,
	threadId: row.thread_id,
	url: row.url,
	// PostgreSQL answers BIGINT as a string.
	expiresAt: Number(row.expires_at),
});

/** Reply hooks: deleted as they are spent (DELETE ... RETURNING), so a second reply in the same thread finds none. */
export class SqlReplyHookStore implements ReplyHookStore {
	constructor(private readonly db: SqlDb) {}

	async take(threadId: string, now: number, exceptOutgoingId = ''): Promise<ReplyHook[]> {
		const rows = await this.db.rows<ReplyHookRow>(
			'DELETE FROM reply_hooks WHERE thread_id = $1 AND expires_at > $2 AND outgoing_id <> $3 RETURNING *',
			[threadId, now, exceptOutgoingId],
		);
		return rows.map(toReplyHook);
	}

	deleteExpired(now: number): Promise<number> {
		return this.db.run('DELETE FROM reply_hooks WHERE expires_at <= $1', [now]);
	}
}
