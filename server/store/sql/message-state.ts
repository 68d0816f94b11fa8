import type { Folder, MessageRecord } from '../../schemas/message';
import type { MessageStateStore } from '../store';
import { RECORD_COLUMNS, toRecord, type RecordRow } from '../message-records';
import type { SqlDb } from './sql-db';

export class SqlMessageStateStore implements MessageStateStore {
	constructor(private readonly db: SqlDb) {}

	addLabel(inbox: string, id: string, label: string): Promise<string[] | undefined> {
		return this.changeLabels(inbox, id, (labels) => (labels.includes(label) ? labels : [...labels, label]));
	}

	removeLabel(inbox: string, id: string, label: string): Promise<string[] | undefined> {
		return this.changeLabels(inbox, id, (labels) => labels.filter((existing) => existing !== label));
	}

	async setFolder(inbox: string, id: string, folder: Folder): Promise<boolean> {
		return (await this.db.run('UPDATE messages SET folder = $1 WHERE id = $2 AND inbox = $3', [folder, id, inbox])) > 0;
	}

	async setRead(inbox: string, id: string, read: boolean): Promise<boolean> {
		return (await this.db.run('UPDATE messages SET read = $1 WHERE id = $2 AND inbox = $3', [read ? 1 : 0, id, inbox])) > 0;
	}

	toggleStar(inbox: string, id: string, account: string): Promise<MessageRecord | undefined> {
		return this.star('CASE WHEN saved_by IS NULL THEN $3 END', [id, inbox, account]);
	}

	setStar(inbox: string, id: string, account: string, starred: boolean): Promise<MessageRecord | undefined> {
		return this.star('CASE WHEN $4 = 1 THEN coalesce(saved_by, $3) END', [id, inbox, account, starred ? 1 : 0]);
	}

	async starred(account: string, limit: number): Promise<MessageRecord[]> {
		// Ties in the order they were stored.
		const rows = await this.db.rows<RecordRow>(
			`SELECT ${RECORD_COLUMNS} FROM messages WHERE saved_by = $1 ORDER BY received DESC, seq LIMIT $2`,
			[account, limit],
		);
		return rows.map(toRecord);
	}

	private async star(savedBy: string, params: unknown[]): Promise<MessageRecord | undefined> {
		const row = await this.db.row<RecordRow>(
			`UPDATE messages SET saved_by = ${savedBy} WHERE id = $1 AND inbox = $2 RETURNING ${RECORD_COLUMNS}`,
			params,
		);
		return row && toRecord(row);
	}

	/** Reads and rewrites the labels with the row locked, so that two changes at once both count. */
	private changeLabels(inbox: string, id: string, change: (labels: string[]) => string[]): Promise<string[] | undefined> {
		return this.db.transaction(async (tx) => {
			const row = await tx.row<{ labels_json: string }>(
				`SELECT labels_json FROM messages WHERE id = $1 AND inbox = $2${tx.dialect.forUpdate}`,
				[id, inbox],
			);
			if (!row) return undefined;
			const labels = change(JSON.parse(row.labels_json) as string[]);
			await tx.run('UPDATE messages SET labels_json = $1 WHERE id = $2 AND inbox = $3', [JSON.stringify(labels), id, inbox]);
			return labels;
		});
	}
}
