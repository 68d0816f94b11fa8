import type { AddressObject, MessageRecord } from '../../schemas/message';
import type { MessageFilter } from '../../schemas/wait-for';
import { containsIgnoringCase, sentBy } from '../../mail/filter-match';
import type { MessageMatcher } from '../store';
import { RECORD_COLUMNS, toRecord, type RecordRow } from '../message-records';
import { DeletedWhileReadError } from '../../bytes/stored-bytes';
import type { Db } from './database';
import { ContentPieces, piecedLength, storedText } from './content-pieces';

/** Records looked at per query while looking for a match. */
const PAGE = 50;

interface CandidateRow extends RecordRow {
	seq: number;
	content_id: number;
}

interface TextRow {
	text: Buffer;
	pieced: number | null;
}

/**
 * Finds the oldest message of an inbox received since a time that passes a filter (GET .../wait-for-message): the one
 * matcher of waiting for mail, for mail already stored and for mail that wakes a waiting request alike. Text is compared in
 * JavaScript with the rules of webhook subscription filters (PostgreSQL's lower() depends on the server's locale), so the
 * inbox's records are read a page at a time, oldest first, and the text, the costly part, only for a record whose sender
 * and subject pass.
 */
export class PostgresMessageMatcher implements MessageMatcher {
	constructor(private readonly db: Db) {}

	async oldestMatching(inbox: string, since: number, filter: MessageFilter): Promise<MessageRecord | undefined> {
		let after: [received: number, seq: number] = [since, 0];
		for (;;) {
			const page = await this.db.rows<CandidateRow>(
				`SELECT ${RECORD_COLUMNS}, seq, content_id FROM messages
					WHERE inbox = $1 AND (received, seq) > ($2, $3) ORDER BY received, seq LIMIT ${PAGE}`,
				[inbox, after[0], after[1]],
			);
			for (const row of page) {
				if (await this.passes(row, filter)) return toRecord(row);
			}
			if (page.length < PAGE) return undefined;
			const last = page[page.length - 1];
			after = [last.received, last.seq];
		}
	}

	private async passes(row: CandidateRow, { from, subject, text }: MessageFilter): Promise<boolean> {
		if (from !== undefined && !sentBy(JSON.parse(row.from_json) as AddressObject[], from)) return false;
		if (subject !== undefined && !containsIgnoringCase(row.subject, subject)) return false;
		return text === undefined || containsIgnoringCase(await this.textOf(row.content_id), text);
	}

	/** The plain-text body: its column, or for a body of 1 MB or more its pieces joined ('' once the message is gone). */
	private async textOf(contentId: number): Promise<string> {
		const row = await this.db.row<TextRow>(`SELECT c.text, ${piecedLength('text')} AS pieced FROM contents c WHERE c.id = $1`, [contentId]);
		if (!row) return '';
		const bytes = row.pieced === null ? row.text : new ContentPieces(this.db).body(contentId, 'text', row.pieced);
		return storedText(bytes).catch((err: unknown) => {
			if (err instanceof DeletedWhileReadError) return '';
			throw err;
		});
	}
}
