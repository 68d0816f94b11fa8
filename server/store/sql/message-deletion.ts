import type { MessageDeletion } from '../store';
import type { SqlDb } from './sql-db';

/**
 * The one way messages leave the store; each method is one transaction. A content is shared by the records of one SMTP
 * transaction, and attachment bytes by every content with the same file, so each goes only with the last record
 * referring to it. Nodes deleting at once must agree on which is the last: each locks the rows it may delete before
 * looking (in a statement of its own, which sees what the other committed meanwhile) whether anything still refers to them.
 * A content's pieces (large messages) go with it (ON DELETE CASCADE).
 */
export class SqlMessageDeletion implements MessageDeletion {
	constructor(private readonly db: SqlDb) {}

	async deleteMessage(inbox: string, id: string): Promise<boolean> {
		return (await this.purge('id = $1 AND inbox = $2', [id, inbox])) > 0;
	}

	deleteInbox(inbox: string): Promise<number> {
		return this.purge('inbox = $1 AND saved_by IS NULL', [inbox]);
	}

	deleteDomain(domain: string): Promise<number> {
		return this.purge('domain = $1', [domain]);
	}

	async deleteBySeq(seqs: number[]): Promise<number> {
		return seqs.length ? this.purge(this.db.dialect.inList('seq', '$1'), [this.db.dialect.list(seqs)]) : 0;
	}

	private purge(condition: string, params: unknown[]): Promise<number> {
		return this.db.transaction(async (tx) => {
			const deleted = await tx.rows<{ content_id: number }>(`DELETE FROM messages WHERE ${condition} RETURNING content_id`, params);
			const contents = [...new Set(deleted.map((row) => row.content_id))].sort((a, b) => a - b);
			if (contents.length) await releaseContents(tx, contents);
			return deleted.length;
		});
	}
}

/** Deletes the contents no record refers to any more, and then the attachment bytes no content refers to. */
async function releaseContents(tx: SqlDb, contentIds: number[]): Promise<void> {
	const { dialect } = tx;
	const among = (column: string) => dialect.inList(column, '$1');
	if (dialect.forUpdate)
		await tx.run(`SELECT 1 FROM contents WHERE ${among('id')} ORDER BY id${dialect.forUpdate}`, [dialect.list(contentIds)]);
	const unused = (
		await tx.rows<{ id: number }>(
			`SELECT id FROM contents c WHERE ${among('id')} AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.content_id = c.id)`,
			[dialect.list(contentIds)],
		)
	).map((row) => row.id);
	if (unused.length === 0) return;
	const checksums = (
		await tx.rows<{ checksum: string }>(`DELETE FROM content_attachments WHERE ${among('content_id')} RETURNING checksum`, [
			dialect.list(unused),
		])
	).map((row) => row.checksum);
	await tx.run(`DELETE FROM contents WHERE ${among('id')}`, [dialect.list(unused)]);
	if (checksums.length === 0) return;
	const candidates = [...new Set(checksums)];
	if (dialect.forUpdate)
		await tx.run(`SELECT 1 FROM attachment_contents WHERE ${among('checksum')} ORDER BY checksum${dialect.forUpdate}`, [
			dialect.list(candidates),
		]);
	await tx.run(
		`DELETE FROM attachment_contents WHERE ${among('checksum')}
			AND NOT EXISTS (SELECT 1 FROM content_attachments c WHERE c.checksum = attachment_contents.checksum)`,
		[dialect.list(candidates)],
	);
}
