import type { NewOutgoing, ThreadCursor, ThreadEntry, ThreadStore } from '../store';
import { isSpooled, spooledStart } from '../../bytes/spooled-bytes';
import {
	lookupCandidates,
	messageKeyOf,
	RAW_THREAD_HEADER_LIMIT,
	rawThreadHeaders,
	recordThread,
	type RecordThread,
	type ThreadScope,
} from '../../mail/threading';
import { RECORD_COLUMNS, toRecord, type RecordRow } from '../message-records';
import { toOutgoingRecord, type OutgoingRow } from '../outgoing-records';
import { prepared, type SqlDb } from './sql-db';

/**
 * The thread of the first stored or sent message of `scope` that one of `candidates` (Message-IDs, in the order of
 * lookupCandidates) names; undefined when none is stored. One probe of each key index per candidate (at most 50).
 */
export async function foundThread(db: SqlDb, scope: ThreadScope, candidates: string[]): Promise<string | undefined> {
	if (candidates.length === 0) return undefined;
	const rows = await db.rows<{ thread_id: string | null }>(
		prepared(
			`found-thread-${db.dialect.engine}`,
			`SELECT coalesce((SELECT thread_id FROM messages WHERE message_key = k.value LIMIT 1),
				(SELECT thread_id FROM outgoing_messages WHERE message_key = k.value LIMIT 1)) AS thread_id
			FROM ${db.dialect.listRows('$1', 'k')} ORDER BY k.key`,
		),
		[db.dialect.list(candidates.map((id) => messageKeyOf(scope, id)))],
	);
	return rows.find((row) => row.thread_id !== null)?.thread_id ?? undefined;
}

/**
 * The thread of sent mail, whose scope is its account: that of the received message it answers (inReplyTo) when that is
 * in one of the account's threads, else the one the headers of its raw source find, else its root's.
 */
export async function sentThread(db: SqlDb, message: Pick<NewOutgoing, 'id' | 'accountId' | 'inReplyTo' | 'raw'>): Promise<RecordThread> {
	// A message composed into the spool (and stored in pieces) is read for its header from its file, never whole.
	const { raw } = message;
	const headers = rawThreadHeaders(isSpooled(raw) ? spooledStart(raw, RAW_THREAD_HEADER_LIMIT) : raw);
	const original =
		message.inReplyTo === null
			? undefined
			: await db.row<{ thread_id: string }>('SELECT thread_id FROM messages WHERE id = $1 AND thread_account = $2', [
					message.inReplyTo,
					message.accountId,
				]);
	const found = original?.thread_id ?? (await foundThread(db, message.accountId, lookupCandidates(headers)));
	return recordThread(headers, message.accountId, found, message.id);
}

/** Received records of a thread, each with the account its inbox belongs to now. */
const RECEIVED = `SELECT ${RECORD_COLUMNS}, m.seq, coalesce((SELECT a.owner FROM addresses a WHERE a.email = m.inbox),
	(SELECT d.owner FROM domains d WHERE d.domain = m.domain)) AS owner FROM messages m WHERE m.thread_id = $1`;

/** The order of a thread (see ThreadCursor): sent before received at one time. */
const order = (a: ThreadCursor, b: ThreadCursor) => a.time - b.time || (a.type === b.type ? a.seq - b.seq : a.type === 'sent' ? -1 : 1);

/**
 * The condition and parameters (from $2 on) that keep what of a table comes after `after`, given the table's type, its
 * time column and `after`'s time as that column holds it: later times; at that time, of the same type, later seqs; of
 * the other type, received after sent.
 */
function laterThan(after: ThreadCursor | undefined, type: ThreadCursor['type'], time: string, at: number | string) {
	if (!after) return { condition: '', params: [] };
	const seq = type === 'received' ? 'm.seq' : 'o.seq';
	if (after.type === type) return { condition: `AND (${time} > $2 OR (${time} = $2 AND ${seq} > $3))`, params: [at, after.seq] };
	return { condition: `AND ${time} ${type === 'received' ? '>=' : '>'} $2`, params: [at] };
}

/** Threads read from both tables by their indexes (thread_id, then time and seq). */
export class SqlThreadStore implements ThreadStore {
	constructor(private readonly db: SqlDb) {}

	async scopeOf(threadId: string): Promise<{ account: string | null } | undefined> {
		const received = await this.db.row<{ account: string | null }>(
			'SELECT thread_account AS account FROM messages WHERE thread_id = $1 LIMIT 1',
			[threadId],
		);
		return (
			received ??
			(await this.db.row<{ account: string }>('SELECT account_id AS account FROM outgoing_messages WHERE thread_id = $1 LIMIT 1', [
				threadId,
			]))
		);
	}

	async page(threadId: string, limit: number, after?: ThreadCursor): Promise<ThreadEntry[]> {
		const receivedAfter = laterThan(after, 'received', 'm.received', after?.time ?? 0);
		const received = await this.db.rows<RecordRow & { seq: number; owner: string | null }>(
			`${RECEIVED} ${receivedAfter.condition} ORDER BY m.received, m.seq LIMIT $${receivedAfter.params.length + 2}`,
			[threadId, ...receivedAfter.params, limit],
		);
		const sentAfter = laterThan(after, 'sent', 'o.sent', new Date(after?.time ?? 0).toISOString());
		const sent = await this.db.rows<OutgoingRow & { seq: number; account_id: string }>(
			`SELECT * FROM outgoing_messages o WHERE o.thread_id = $1 ${sentAfter.condition} ORDER BY o.sent, o.seq
				LIMIT $${sentAfter.params.length + 2}`,
			[threadId, ...sentAfter.params, limit],
		);
		const entries: ThreadEntry[] = [
			...received.map((row) => ({
				type: 'received' as const,
				record: toRecord(row),
				owner: row.owner,
				place: { time: row.received, type: 'received' as const, seq: row.seq },
			})),
			...sent.map((row) => ({
				type: 'sent' as const,
				record: toOutgoingRecord(row),
				account: row.account_id,
				place: { time: Date.parse(row.sent), type: 'sent' as const, seq: row.seq },
			})),
		];
		return entries.sort((a, b) => order(a.place, b.place)).slice(0, limit);
	}
}
