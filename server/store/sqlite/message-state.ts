import type { Statement } from 'better-sqlite3';
import type { Db } from './database';
import type { MessageStateStore } from '../store';
import { RECORD_COLUMNS, toRecord, type RecordRow } from '../message-records';
import type { Folder, MessageRecord } from '../../schemas/message';

export class SqliteMessageStateStore implements MessageStateStore {
	private readonly selectLabels: Statement;
	private readonly updateLabels: Statement;
	private readonly updateFolder: Statement;
	private readonly updateRead: Statement;
	private readonly toggleSavedBy: Statement;
	private readonly setSavedBy: Statement;
	private readonly selectStarred: Statement;

	constructor(db: Db) {
		this.selectLabels = db.prepare('SELECT labels_json FROM messages WHERE id = ? AND inbox = ?').pluck();
		this.updateLabels = db.prepare('UPDATE messages SET labels_json = ? WHERE id = ? AND inbox = ?');
		this.updateFolder = db.prepare('UPDATE messages SET folder = ? WHERE id = ? AND inbox = ?');
		this.updateRead = db.prepare('UPDATE messages SET read = ? WHERE id = ? AND inbox = ?');
		this.toggleSavedBy = db.prepare(`UPDATE messages SET saved_by = CASE WHEN saved_by IS NULL THEN @account END
			WHERE id = @id AND inbox = @inbox RETURNING ${RECORD_COLUMNS}`);
		this.setSavedBy = db.prepare(`UPDATE messages SET saved_by = CASE WHEN @starred THEN coalesce(saved_by, @account) END
			WHERE id = @id AND inbox = @inbox RETURNING ${RECORD_COLUMNS}`);
		this.selectStarred = db.prepare(`SELECT ${RECORD_COLUMNS} FROM messages WHERE saved_by = ? ORDER BY received DESC LIMIT ?`);
	}

	async addLabel(inbox: string, id: string, label: string): Promise<string[] | undefined> {
		return this.changeLabels(inbox, id, (labels) => (labels.includes(label) ? labels : [...labels, label]));
	}

	async removeLabel(inbox: string, id: string, label: string): Promise<string[] | undefined> {
		return this.changeLabels(inbox, id, (labels) => labels.filter((existing) => existing !== label));
	}

	async setFolder(inbox: string, id: string, folder: Folder): Promise<boolean> {
		return this.updateFolder.run(folder, id, inbox).changes > 0;
	}

	async setRead(inbox: string, id: string, read: boolean): Promise<boolean> {
		return this.updateRead.run(read ? 1 : 0, id, inbox).changes > 0;
	}

	async toggleStar(inbox: string, id: string, account: string): Promise<MessageRecord | undefined> {
		const row = this.toggleSavedBy.get({ account, id, inbox }) as RecordRow | undefined;
		return row && toRecord(row);
	}

	async setStar(inbox: string, id: string, account: string, starred: boolean): Promise<MessageRecord | undefined> {
		const row = this.setSavedBy.get({ account, id, inbox, starred: starred ? 1 : 0 }) as RecordRow | undefined;
		return row && toRecord(row);
	}

	async starred(account: string, limit: number): Promise<MessageRecord[]> {
		return (this.selectStarred.all(account, limit) as RecordRow[]).map(toRecord);
	}

	private changeLabels(inbox: string, id: string, change: (labels: string[]) => string[]): string[] | undefined {
		const current = this.selectLabels.get(id, inbox) as string | undefined;
		if (current === undefined) return undefined;
		const labels = change(JSON.parse(current) as string[]);
		this.updateLabels.run(JSON.stringify(labels), id, inbox);
		return labels;
	}
}
