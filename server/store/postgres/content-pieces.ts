import type { SpooledBytes } from '../../bytes/spooled-bytes';
import { storedPieces, type PiecedBytes, type StoredBytes } from '../../bytes/stored-bytes';
import { bytesOfPieces, filePieces, piecesHolding } from '../pieces';
import type { Db } from './database';

/** Which body of a message: its text or its HTML. */
export type BodyKind = 'text' | 'html';

/**
 * The raw source, attachments and large bodies of a spooled (large) message, stored in 1 MB pieces (`content_raw_pieces`,
 * `attachment_pieces`, `content_body_pieces`; the column they would fill is then empty). They are copied in from the spool
 * files a piece at a time inside the message's transaction, and read back one piece per query: memory holds a piece, not
 * the message. Deleting the content or attachment row deletes its pieces (ON DELETE CASCADE).
 */
export class ContentPieces {
	constructor(private readonly db: Db) {}

	/** Call inside the transaction that inserts the content row. */
	writeRaw(contentId: number, spooled: SpooledBytes): Promise<void> {
		return this.copy(spooled, 'INSERT INTO content_raw_pieces (content_id, seq, data) VALUES ($1, $2, $3)', [contentId]);
	}

	/** Call inside the transaction that inserts the attachment_contents row. */
	writeAttachment(checksum: string, spooled: SpooledBytes): Promise<void> {
		return this.copy(spooled, 'INSERT INTO attachment_pieces (checksum, seq, data) VALUES ($1, $2, $3)', [checksum]);
	}

	/** Call inside the transaction that inserts the content row. */
	writeBody(contentId: number, kind: BodyKind, spooled: SpooledBytes): Promise<void> {
		return this.copy(spooled, 'INSERT INTO content_body_pieces (content_id, kind, seq, data) VALUES ($1, $2, $3, $4)', [contentId, kind]);
	}

	/**
	 * A content's raw source stored in pieces, `length` bytes in all. Each piece is read by its own query on the pool: the
	 * reader may take them long after the transaction that found the message has ended.
	 */
	raw(contentId: number, length: number): PiecedBytes {
		return this.pieced(length, 'SELECT data FROM content_raw_pieces WHERE content_id = $1 AND seq = $2', [contentId]);
	}

	/** A body stored in pieces, `length` bytes in all, read as raw() is. */
	body(contentId: number, kind: BodyKind, length: number): PiecedBytes {
		return this.pieced(length, 'SELECT data FROM content_body_pieces WHERE content_id = $1 AND kind = $2 AND seq = $3', [contentId, kind]);
	}

	/** `length` bytes of a pieced attachment from `offset`; empty past its end (or when it has no pieces). */
	async readAttachment(checksum: string, offset: number, length: number): Promise<Buffer> {
		if (length <= 0) return Buffer.alloc(0);
		const { first, last } = piecesHolding(offset, length);
		const pieces = await this.db.outside.rows<{ data: Buffer }>(
			'SELECT data FROM attachment_pieces WHERE checksum = $1 AND seq BETWEEN $2 AND $3 ORDER BY seq',
			[checksum, first, last],
		);
		return bytesOfPieces(
			pieces.map((piece) => piece.data),
			first,
			offset,
			length,
		);
	}

	private pieced(length: number, sql: string, key: unknown[]): PiecedBytes {
		const { outside } = this.db;
		return { length, piece: async (seq) => (await outside.row<{ data: Buffer }>(sql, [...key, seq]))?.data };
	}

	private async copy(spooled: SpooledBytes, sql: string, key: unknown[]): Promise<void> {
		let seq = 0;
		for await (const piece of filePieces(spooled.spoolPath)) await this.db.run(sql, [...key, seq++, piece]);
	}
}

/**
 * SQL: how many bytes content `c` keeps in pieces of its raw source or of a body, when that column is empty; NULL when
 * it keeps none (an empty column then is an empty body).
 */
export function piecedLength(column: 'raw' | BodyKind): string {
	const pieces =
		column === 'raw'
			? 'content_raw_pieces p WHERE p.content_id = c.id'
			: `content_body_pieces p WHERE p.content_id = c.id AND p.kind = '${column}'`;
	return `CASE WHEN octet_length(c.${column}) = 0 THEN (SELECT sum(octet_length(p.data)) FROM ${pieces}) END`;
}

/** Stored UTF-8 text, decoded whole: pieces are read one at a time into one buffer (DeletedWhileReadError should they end early). */
export async function storedText(bytes: StoredBytes): Promise<string> {
	if (Buffer.isBuffer(bytes)) return bytes.toString();
	const joined = Buffer.allocUnsafe(bytes.length);
	let offset = 0;
	for await (const piece of storedPieces(bytes)) offset += piece.copy(joined, offset);
	return joined.toString();
}
