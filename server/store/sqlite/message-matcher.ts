import type { Statement } from 'better-sqlite3';
import type { Db } from './database';
import type { AddressObject, MessageRecord } from '../../schemas/message';
import type { MessageFilter } from '../../schemas/wait-for';
import type { MessageMatcher } from '../store';
import { containsIgnoringCase, sentBy } from '../../mail/filter-match';
import { RECORD_COLUMNS, toRecord, type RecordRow } from '../message-records';

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
	private readonly selectOldest: Statement;

	constructor(db: Db) {
		db.function('filter_contains', { deterministic: true }, (text: string | null, part: string) =>
			containsIgnoringCase(text ?? '', part) ? 1 : 0,
		);
		db.function('filter_sent_by', { deterministic: true }, (fromJson: string, part: string) =>
			sentBy(JSON.parse(fromJson) as AddressObject[], part) ? 1 : 0,
		);
		// The text, the costly part, is read last, only for a message whose sender and subject pass.
		this.selectOldest = db.prepare(`SELECT ${RECORD_COLUMNS} FROM messages m
			WHERE m.inbox = @inbox AND m.received >= @since
				AND (@from IS NULL OR filter_sent_by(m.from_json, @from))
				AND (@subject IS NULL OR filter_contains(m.subject, @subject))
				AND (@text IS NULL OR filter_contains(${TEXT_OF_MESSAGE}, @text))
			ORDER BY m.received, m.seq LIMIT 1`);
	}

	/** The oldest message of `inbox` received at or after `since` (epoch ms) that passes every part of `filter` given. */
	async oldestMatching(inbox: string, since: number, filter: MessageFilter): Promise<MessageRecord | undefined> {
		const row = this.selectOldest.get({
			inbox,
			since,
			from: filter.from ?? null,
			subject: filter.subject ?? null,
			text: filter.text ?? null,
		}) as RecordRow | undefined;
		return row && toRecord(row);
	}
}
