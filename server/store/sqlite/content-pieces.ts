import type { Statement } from 'better-sqlite3';
import type { Db } from './database';
import type { SpooledBytes } from '../../bytes/spooled-bytes';
import type { PiecedBytes } from '../../bytes/stored-bytes';
import { bytesOfPieces, filePiecesSync, piecesHolding } from '../pieces';

/** Which body of a message: its text or its HTML. */
export type BodyKind = 'text' | 'html';

/**
 * The raw source, attachments and large bodies of a spooled (large) message, stored in the database in pieces
 * (`content_raw_pieces`, `attachment_pieces`, `content_body_pieces`; the `raw`, `content`, `text` or `html` column is then empty). They
 * are copied in from the spool files a piece at a time inside the message's transaction, so they
 * commit, and are fsynced, with it: memory holds one piece, not the message. Deleting the content
 * or attachment row deletes its pieces (ON DELETE CASCADE).
 */
export class ContentPieces {
	private readonly insertRawPiece: Statement;
	private readonly insertAttachmentPiece: Statement;
	private readonly selectRawPiece: Statement;
	private readonly selectRawLength: Statement;
	private readonly selectAttachmentPieces: Statement;
	private readonly insertBodyPiece: Statement;
	private readonly selectBodyPieces: Statement;
	private readonly selectBodyPiece: Statement;
	private readonly selectBodyLength: Statement;

	constructor(db: Db) {
		this.insertRawPiece = db.prepare('INSERT INTO content_raw_pieces (content_id, seq, data) VALUES (?, ?, ?)');
		this.insertAttachmentPiece = db.prepare('INSERT INTO attachment_pieces (checksum, seq, data) VALUES (?, ?, ?)');
		this.selectRawPiece = db.prepare('SELECT data FROM content_raw_pieces WHERE content_id = ? AND seq = ?').pluck();
		this.selectRawLength = db.prepare('SELECT sum(length(data)) FROM content_raw_pieces WHERE content_id = ?').pluck();
		this.selectAttachmentPieces = db
			.prepare('SELECT data FROM attachment_pieces WHERE checksum = ? AND seq BETWEEN ? AND ? ORDER BY seq')
			.pluck();
		this.insertBodyPiece = db.prepare('INSERT INTO content_body_pieces (content_id, kind, seq, data) VALUES (?, ?, ?, ?)');
		this.selectBodyPieces = db.prepare('SELECT data FROM content_body_pieces WHERE content_id = ? AND kind = ? ORDER BY seq').pluck();
		this.selectBodyPiece = db.prepare('SELECT data FROM content_body_pieces WHERE content_id = ? AND kind = ? AND seq = ?').pluck();
		this.selectBodyLength = db.prepare('SELECT sum(length(data)) FROM content_body_pieces WHERE content_id = ? AND kind = ?').pluck();
	}

	/** Call inside the transaction that inserts the content row. */
	writeRaw(contentId: number | bigint, spooled: SpooledBytes): void {
		copyFile(spooled.spoolPath, (seq, piece) => this.insertRawPiece.run(contentId, seq, piece));
	}

	/** Call inside the transaction that inserts the attachment_contents row. */
	writeAttachment(checksum: string, spooled: SpooledBytes): void {
		copyFile(spooled.spoolPath, (seq, piece) => this.insertAttachmentPiece.run(checksum, seq, piece));
	}

	/** Call inside the transaction that inserts the content row. */
	writeBody(contentId: number | bigint, kind: BodyKind, spooled: SpooledBytes): void {
		copyFile(spooled.spoolPath, (seq, piece) => this.insertBodyPiece.run(contentId, kind, seq, piece));
	}

	/** A body stored in pieces, decoded; undefined when it is not stored in pieces. */
	body(contentId: number, kind: BodyKind): string | undefined {
		return joinPieces(this.selectBodyLength.get(contentId, kind) as number | null, () =>
			this.selectBodyPieces.iterate(contentId, kind),
		)?.toString();
	}

	/** A content's raw source as stored in pieces (each read by its own query); undefined when it is not stored so. */
	rawSource(contentId: number): PiecedBytes | undefined {
		const length = this.selectRawLength.get(contentId) as number | null;
		return length === null ? undefined : { length, piece: async (seq) => this.selectRawPiece.get(contentId, seq) as Buffer | undefined };
	}

	/** A body's UTF-8 bytes as stored in pieces (each read by its own query); undefined when it is not stored so. */
	bodySource(contentId: number, kind: BodyKind): PiecedBytes | undefined {
		const length = this.selectBodyLength.get(contentId, kind) as number | null;
		return length === null
			? undefined
			: { length, piece: async (seq) => this.selectBodyPiece.get(contentId, kind, seq) as Buffer | undefined };
	}

	/** `length` bytes of a pieced attachment from `offset`; empty past its end (or when it has no pieces). */
	readAttachment(checksum: string, offset: number, length: number): Buffer {
		if (length <= 0) return Buffer.alloc(0);
		const { first, last } = piecesHolding(offset, length);
		const pieces = this.selectAttachmentPieces.all(checksum, first, last) as Buffer[];
		return pieces.length ? bytesOfPieces(pieces, first, offset, length) : Buffer.alloc(0);
	}
}

/**
 * Pieces `length` bytes long in all, in one buffer allocated once; undefined when there are none (`length` null).
 * `pieces` runs the query only then: an iterator left unfinished would keep the connection busy.
 */
function joinPieces(length: number | null, pieces: () => IterableIterator<unknown>): Buffer | undefined {
	if (length === null) return undefined;
	const joined = Buffer.allocUnsafe(length);
	let offset = 0;
	for (const piece of pieces() as IterableIterator<Buffer>) offset += piece.copy(joined, offset);
	return joined;
}

/** Hands a file to `write` in whole pieces of PIECE_SIZE (the last may be shorter), reusing one buffer. */
function copyFile(path: string, write: (seq: number, piece: Buffer) => void): void {
	let seq = 0;
	for (const piece of filePiecesSync(path)) write(seq++, piece);
}
