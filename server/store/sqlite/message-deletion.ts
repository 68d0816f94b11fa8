import type { Statement } from 'better-sqlite3';
import type { Db } from './database';
import type { MessageDeletion } from '../store';

/** See MessageDeletion. Every method is one transaction (a savepoint when called inside another). */
export class SqliteMessageDeletion implements MessageDeletion {
	private readonly deleteOne: Statement;
	private readonly deleteUnstarredInbox: Statement;
	private readonly deleteDomainRecords: Statement;
	private readonly deleteSeqs: Statement;
	private readonly contentInUse: Statement;
	private readonly contentChecksums: Statement;
	private readonly deleteContentAttachments: Statement;
	private readonly deleteContent: Statement;
	private readonly checksumInUse: Statement;
	private readonly deleteAttachmentContent: Statement;

	constructor(private readonly db: Db) {
		this.deleteOne = db.prepare('DELETE FROM messages WHERE id = ? AND inbox = ? RETURNING content_id');
		this.deleteUnstarredInbox = db.prepare('DELETE FROM messages WHERE inbox = ? AND saved_by IS NULL RETURNING content_id');
		this.deleteDomainRecords = db.prepare('DELETE FROM messages WHERE domain = ? RETURNING content_id');
		this.deleteSeqs = db.prepare('DELETE FROM messages WHERE seq IN (SELECT value FROM json_each(?)) RETURNING content_id');
		this.contentInUse = db.prepare('SELECT 1 FROM messages WHERE content_id = ? LIMIT 1');
		this.contentChecksums = db.prepare('SELECT DISTINCT checksum FROM content_attachments WHERE content_id = ?');
		this.deleteContentAttachments = db.prepare('DELETE FROM content_attachments WHERE content_id = ?');
		this.deleteContent = db.prepare('DELETE FROM contents WHERE id = ?');
		this.checksumInUse = db.prepare('SELECT 1 FROM content_attachments WHERE checksum = ? LIMIT 1');
		this.deleteAttachmentContent = db.prepare('DELETE FROM attachment_contents WHERE checksum = ?');
	}

	async deleteMessage(inbox: string, id: string): Promise<boolean> {
		return this.purge(this.deleteOne, id, inbox) > 0;
	}

	async deleteInbox(inbox: string): Promise<number> {
		return this.purge(this.deleteUnstarredInbox, inbox);
	}

	async deleteDomain(domain: string): Promise<number> {
		return this.purge(this.deleteDomainRecords, domain);
	}

	async deleteBySeq(seqs: number[]): Promise<number> {
		return seqs.length ? this.purge(this.deleteSeqs, JSON.stringify(seqs)) : 0;
	}

	private purge(statement: Statement, ...params: unknown[]): number {
		return this.db
			.transaction(() => {
				const rows = statement.all(...params) as { content_id: number }[];
				for (const contentId of new Set(rows.map((row) => row.content_id))) this.releaseContent(contentId);
				return rows.length;
			})
			.immediate();
	}

	private releaseContent(contentId: number): void {
		if (this.contentInUse.get(contentId)) return;
		const checksums = (this.contentChecksums.all(contentId) as { checksum: string }[]).map((row) => row.checksum);
		this.deleteContentAttachments.run(contentId);
		this.deleteContent.run(contentId);
		for (const checksum of checksums) {
			if (!this.checksumInUse.get(checksum)) this.deleteAttachmentContent.run(checksum);
		}
	}
}
