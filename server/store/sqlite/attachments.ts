import type { Statement } from 'better-sqlite3';
import type { Db } from './database';
import type { AttachmentMeta } from '../../schemas/message';
import type { AttachmentStore } from '../store';
import { ContentPieces } from './content-pieces';

const META_COLUMNS = `a.checksum, a.content_type AS contentType, a.file_name AS fileName, a.length,
	a.content_id_header AS contentId, a.content_disposition AS contentDisposition, a.transfer_encoding AS transferEncoding`;

export class SqliteAttachmentStore implements AttachmentStore {
	private readonly selectMessage: Statement;
	private readonly selectAll: Statement;
	private readonly selectByIdentifier: Statement;
	private readonly selectChunk: Statement;
	private readonly pieces: ContentPieces;

	constructor(db: Db) {
		this.pieces = new ContentPieces(db);
		this.selectMessage = db.prepare('SELECT content_id FROM messages WHERE id = ? AND inbox = ?').pluck();
		this.selectAll = db.prepare(`SELECT ${META_COLUMNS} FROM content_attachments a WHERE a.content_id = ? ORDER BY a.position`);
		// The identifier may be the MD5 checksum, the Content-ID (with or without <>) or the file name, as with Mailsac.
		this.selectByIdentifier = db.prepare(`SELECT ${META_COLUMNS} FROM content_attachments a
			WHERE a.content_id = @content AND (a.checksum = lower(@identifier) OR trim(a.content_id_header, '<>') = trim(@identifier, '<>') OR a.file_name = @identifier)
			ORDER BY a.checksum = lower(@identifier) DESC, a.position LIMIT 1`);
		this.selectChunk = db.prepare('SELECT substr(content, ?, ?) FROM attachment_contents WHERE checksum = ?').pluck();
	}

	async list(inbox: string, messageId: string): Promise<AttachmentMeta[] | undefined> {
		const content = this.selectMessage.get(messageId, inbox) as number | undefined;
		return content === undefined ? undefined : this.ofContent(content);
	}

	/** The attachments of a stored content (shared by the records of one message), in order. */
	ofContent(contentId: number): AttachmentMeta[] {
		return this.selectAll.all(contentId) as AttachmentMeta[];
	}

	async find(inbox: string, messageId: string, identifier: string): Promise<AttachmentMeta | undefined> {
		const content = this.selectMessage.get(messageId, inbox) as number | undefined;
		return content === undefined ? undefined : (this.selectByIdentifier.get({ content, identifier }) as AttachmentMeta | undefined);
	}

	async read(checksum: string, offset: number, length: number): Promise<Buffer> {
		const piece = this.selectChunk.get(offset + 1, length, checksum) as Buffer | undefined;
		// An attachment of a spooled message is stored in pieces, its content column empty.
		return piece?.length ? piece : this.pieces.readAttachment(checksum, offset, length);
	}
}
