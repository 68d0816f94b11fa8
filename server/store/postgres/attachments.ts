import type { AttachmentMeta } from '../../schemas/message';
import type { AttachmentStore } from '../store';
import type { Db } from './database';
import { ContentPieces } from './content-pieces';

const META_COLUMNS = `a.checksum, a.content_type AS "contentType", a.file_name AS "fileName", a.length,
	a.content_id_header AS "contentId", a.content_disposition AS "contentDisposition", a.transfer_encoding AS "transferEncoding"`;

export class PostgresAttachmentStore implements AttachmentStore {
	constructor(private readonly db: Db) {}

	async list(inbox: string, messageId: string): Promise<AttachmentMeta[] | undefined> {
		const message = await this.db.row<{ content_id: number }>('SELECT content_id FROM messages WHERE id = $1 AND inbox = $2', [
			messageId,
			inbox,
		]);
		return message && this.ofContent(message.content_id);
	}

	/** The attachments of a stored content (shared by the records of one message), in order. */
	ofContent(contentId: number): Promise<AttachmentMeta[]> {
		return this.db.rows<AttachmentMeta>(`SELECT ${META_COLUMNS} FROM content_attachments a WHERE a.content_id = $1 ORDER BY a.position`, [
			contentId,
		]);
	}

	/**
	 * The identifier may be the MD5 checksum (in any case: lower() of "C" text folds ASCII only, as SQLite's does), the
	 * Content-ID (with or without <>) or the file name, as with Mailsac; a checksum match wins.
	 */
	find(inbox: string, messageId: string, identifier: string): Promise<AttachmentMeta | undefined> {
		return this.db.row<AttachmentMeta>(
			`SELECT ${META_COLUMNS} FROM messages m JOIN content_attachments a ON a.content_id = m.content_id
				WHERE m.id = $1 AND m.inbox = $2
					AND (a.checksum = lower($3 COLLATE "C") OR btrim(a.content_id_header, '<>') = btrim($3, '<>') OR a.file_name = $3)
				ORDER BY a.checksum = lower($3 COLLATE "C") DESC, a.position LIMIT 1`,
			[messageId, inbox, identifier],
		);
	}

	async read(checksum: string, offset: number, length: number): Promise<Buffer> {
		if (length <= 0) return Buffer.alloc(0);
		const row = await this.db.row<{ bytes: Buffer }>(
			'SELECT substring(content FROM $2 FOR $3) AS bytes FROM attachment_contents WHERE checksum = $1',
			[checksum, offset + 1, length],
		);
		// An attachment of a spooled message is stored in pieces, its content column empty.
		return row?.bytes.length ? row.bytes : new ContentPieces(this.db).readAttachment(checksum, offset, length);
	}
}
