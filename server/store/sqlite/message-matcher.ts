import type { Statement } from 'better-sqlite3';
import type { Db } from './database';
import type { AddressObject, MessageRecord } from '../../schemas/message';
import type { MessageFilter } from '../../schemas/wait-for';
import type { MessageMatcher } from '../store';
import { containsIgnoringCase, sentBy } from '../../mail/filter-match';
import { RECORD_COLUMNS, toRecord, type RecordRow } from '../message-records';
import { between, nextSpan, unbounded } from '../search-budget';

/** The messages of an inbox the first piece compares; later pieces compare more or fewer as the last took (see nextSpan). */
const FIRST_PIECE = 64;
const PIECES = { min: 1, max: 4096 };

/** The plain-text body of message `m`: its column, or for a body of 1 MB or more its pieces joined (see ContentPieces). */
const TEXT_OF_MESSAGE = `(SELECT CASE WHEN c.text != '' THEN c.text ELSE coalesce(
		(SELECT group_concat(p.data, '' ORDER BY p.seq) FROM content_body_pieces p WHERE p.content_id = c.id AND p.kind = 'text'), '')
	END FROM contents c WHERE c.id = m.content_id)`;

/**
 * Finds the oldest message of an inbox received since a time that passes a filter (GET .../wait-for-message). It is the
 * one matcher of waiting for mail, for mail already stored and for mail that wakes a waiting request alike. Text is
 * compared in JavaScript (SQLite's lower() folds ASCII only), with the rules of webhook subscription filters.
 */
export class SqliteMessageMatcher implements MessageMatcher {
	private readonly selectPiece: Statement;
	private readonly selectBySeq: Statement;

	constructor(db: Db) {
		db.function('filter_contains', { deterministic: true }, (text: string | null, part: string) =>
			containsIgnoringCase(text ?? '', part) ? 1 : 0,
		);
		db.function('filter_sent_by', { deterministic: true }, (fromJson: string, part: string) =>
			sentBy(JSON.parse(fromJson) as AddressObject[], part) ? 1 : 0,
		);
		// A piece of the inbox at a time, oldest first, as (seq, whether it passes): the event loop is free between pieces (see
		// search-budget.ts). The text, the costly part, is read last, only for a message whose sender and subject pass (CASE
		// tries its branches in order, and a part not given calls no function).
		this.selectPiece = db
			.prepare(
				`SELECT m.received, m.seq,
					CASE WHEN @from IS NOT NULL AND NOT filter_sent_by(m.from_json, @from) THEN 0
						WHEN @subject IS NOT NULL AND NOT filter_contains(m.subject, @subject) THEN 0
						WHEN @text IS NOT NULL AND NOT filter_contains(${TEXT_OF_MESSAGE}, @text) THEN 0
						ELSE 1 END AS passes
				FROM messages m
				WHERE m.inbox = @inbox AND m.received >= @since AND (m.received > @afterReceived OR (m.received = @afterReceived AND m.seq > @afterSeq))
				ORDER BY m.received, m.seq LIMIT @piece`,
			)
			.raw();
		this.selectBySeq = db.prepare(`SELECT ${RECORD_COLUMNS} FROM messages m WHERE m.seq = ?`);
	}

	/** The oldest message of `inbox` received at or after `since` (epoch ms) that passes every part of `filter` given. */
	async oldestMatching(inbox: string, since: number, filter: MessageFilter): Promise<MessageRecord | undefined> {
		const values = { inbox, since, from: filter.from ?? null, subject: filter.subject ?? null, text: filter.text ?? null };
		let [afterReceived, afterSeq, piece] = [-Infinity, 0, FIRST_PIECE];
		const budget = unbounded();
		for (;;) {
			const started = performance.now();
			const rows = this.selectPiece.all({ ...values, afterReceived, afterSeq, piece }) as [number, number, number][];
			const passing = rows.find(([, , passes]) => passes === 1);
			if (passing) return toRecord(this.selectBySeq.get(passing[1]) as RecordRow);
			if (rows.length < piece) return undefined;
			[afterReceived, afterSeq] = rows[rows.length - 1];
			piece = nextSpan(piece, performance.now() - started, PIECES);
			await between(budget);
		}
	}
}
