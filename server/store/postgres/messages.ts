import type { MessageRecord } from '../../schemas/message';
import type { ParsedIncomingMail } from '../../mail/incoming-mail';
import type { MessageContent } from '../../mail/message-content';
import { DeletedWhileReadError, type StoredBytes } from '../../bytes/stored-bytes';
import { isSpooled } from '../../bytes/spooled-bytes';
import { bodySample, type MessageBody } from '../../bytes/message-body';
import type { MessageStore } from '../store';
import { newId } from '../ids';
import { RECORD_COLUMNS, nextReceived, sharedValues, storedRecord, toRecord, type RecordRow } from '../message-records';
import { prepared, storable, type Db } from './database';
import { ContentPieces, piecedLength, storedText, type BodyKind } from './content-pieces';
import { PostgresAttachmentStore } from './attachments';
import { lockForStoring } from './locks';
import { RECORD_JSON, recordArray, type RecordJsonRow } from './record-json';
import { SEARCH_COLUMNS, searchTextOf, searchValues, type SearchText } from './search-index';
import { lookupCandidates, recordThread, threadHeadersOf, type RecordThread, type ThreadScope } from '../../mail/threading';

const NO_BYTES = Buffer.alloc(0);

/** Bytes in memory as a Buffer over the same memory (mail arrives in a SharedArrayBuffer). */
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** A body as its column holds it: its UTF-8 bytes, or nothing when it is stored in pieces. */
const bodyColumn = (body: MessageBody) => (isSpooled(body) ? NO_BYTES : Buffer.from(body));

/**
 * Of each inbox: its last `received`, for keeping it strictly increasing; the account that owns it (null: public), whose
 * mail is indexed for search and whose threads the message joins; and the thread of the first stored or sent message of
 * that scope that one of the candidates ($3, Message-IDs in the order of lookupCandidates) names, as foundThread (in
 * sql/threads.ts) finds it, here in the same round trip (the keys digested in SQL, as threadDigest does).
 */
const LAST_RECEIVED = prepared(
	'last-received',
	`SELECT r.inbox, (SELECT received FROM messages WHERE inbox = r.inbox ORDER BY received DESC LIMIT 1) AS received, o.owner,
			(SELECT f.thread_id FROM unnest($3::text[]) WITH ORDINALITY AS c (value, n)
				CROSS JOIN LATERAL (SELECT coalesce(
					(SELECT thread_id FROM messages WHERE message_key = mailroom_digest('message', o.owner, c.value) LIMIT 1),
					(SELECT thread_id FROM outgoing_messages WHERE message_key = mailroom_digest('message', o.owner, c.value) LIMIT 1)
				) AS thread_id) f
				WHERE f.thread_id IS NOT NULL ORDER BY c.n LIMIT 1) AS thread_id
		FROM unnest($1::text[], $2::text[]) AS r (inbox, domain)
		CROSS JOIN LATERAL (SELECT coalesce((SELECT owner FROM addresses WHERE email = r.inbox),
			(SELECT owner FROM domains WHERE domain = r.domain)) AS owner) o`,
);

const INSERT_MESSAGE = `INSERT INTO messages (${RECORD_COLUMNS}, content_id, thread_account, message_key)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, 'inbox', '[]', NULL, NULL,
		$18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29)`;

/** A record of public mail. */
const INSERT_RECORD = prepared('insert-record', INSERT_MESSAGE);

/** A record of private mail, and its entry in the search index, in one statement. */
const INSERT_INDEXED_RECORD = prepared(
	'insert-indexed-record',
	`WITH stored AS (${INSERT_MESSAGE} RETURNING seq)
	INSERT INTO messages_search (seq, ${SEARCH_COLUMNS.join(', ')})
		SELECT seq, ${searchValues((column) => `$${30 + SEARCH_COLUMNS.indexOf(column)}`)} FROM stored`,
);

const INSERT_CONTENT = prepared(
	'insert-content',
	'INSERT INTO contents (message_id, date, priority, headers, text, html, raw) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id',
);
const INSERT_ATTACHMENT_BYTES = prepared(
	'insert-attachment-bytes',
	'INSERT INTO attachment_contents (checksum, content) VALUES ($1, $2) ON CONFLICT (checksum) DO NOTHING',
);
const INSERT_ATTACHMENT = prepared(
	'insert-attachment',
	`INSERT INTO content_attachments (content_id, position, checksum, content_type, file_name, length, content_id_header,
		content_disposition, transfer_encoding) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
);

interface ContentRow {
	id: number;
	message_id: string;
	date: string | null;
	priority: string;
	headers: string;
	text: Buffer;
	html: Buffer | null;
	text_pieced: number | null;
	html_pieced: number | null;
}

interface RawRow {
	id: number;
	raw: Buffer;
	pieced: number | null;
}

export class PostgresMessageStore implements MessageStore {
	constructor(private readonly db: Db) {}

	/** Stores a message: its content once, one record per recipient; in the caller's transaction, or in one of its own. */
	insert(mail: ParsedIncomingMail): Promise<MessageRecord[]> {
		return this.db.transaction(async (tx) => {
			const contentId = await insertContent(tx, mail);
			// Mail to the same inbox from another node waits here until this transaction commits, then reads its `received`.
			await lockForStoring(
				tx,
				mail.recipients.map((recipient) => recipient.inbox),
				mail.recipients.map((recipient) => recipient.domain),
			);
			const threading = threadHeadersOf(mail.parsed.messageId, mail.parsed.headers);
			const inboxes = await tx.rows<{ inbox: string; received: number | null; owner: string | null; thread_id: string | null }>(
				LAST_RECEIVED,
				[
					mail.recipients.map((recipient) => recipient.inbox),
					mail.recipients.map((recipient) => recipient.domain),
					lookupCandidates(threading),
				],
			);
			const last = new Map(inboxes.map((row) => [row.inbox, row.received ?? undefined]));
			const byInbox = new Map(inboxes.map((row) => [row.inbox, row]));
			// The records of one scope (the account owning the inbox, or none) share a thread.
			const threads = new Map<ThreadScope, RecordThread>();
			const shared = sharedValues(mail);
			const subject = storable(shared.subject);
			// Made once for all the message's private records: only the inbox differs between them.
			let searchText: ((inbox: string) => SearchText) | undefined;
			const records: MessageRecord[] = [];
			for (const recipient of mail.recipients) {
				const received = nextReceived(mail.received.getTime(), last.get(recipient.inbox));
				last.set(recipient.inbox, received);
				const id = newId();
				const { owner, thread_id: found } = byInbox.get(recipient.inbox)!;
				let thread = threads.get(owner);
				if (!thread) threads.set(owner, (thread = recordThread(threading, owner, found ?? undefined, id)));
				// prettier-ignore
				const values = [
					id, recipient.inbox, recipient.originalInbox, recipient.domain, received, subject, shared.from_json, shared.to_json,
					shared.cc_json, shared.bcc_json, shared.size, shared.attachments_json, shared.ip, shared.via, shared.rtls,
					shared.links_json, shared.spam, thread.threadId, shared.auth_json, shared.stripped_text, shared.stripped_signature,
					shared.codes_json, shared.message_id_header, shared.date_header, shared.reply_to_json, shared.attachment_files_json,
					contentId, owner, thread.messageKey,
				];
				if (owner !== null) {
					searchText ??= searchTextOf({ ...mail.parsed, subject, bodyStart: bodySample(mail.parsed.text) });
					const text = searchText(recipient.inbox);
					await tx.run(INSERT_INDEXED_RECORD, [...values, ...SEARCH_COLUMNS.map((column) => text[column])]);
				} else {
					await tx.run(INSERT_RECORD, values);
				}
				records.push({ ...storedRecord(mail, recipient, id, received, thread.threadId), subject });
			}
			return records;
		});
	}

	async byIds(ids: string[]): Promise<MessageRecord[]> {
		return (await this.db.rows<RecordRow>(`SELECT ${RECORD_COLUMNS} FROM messages WHERE id = ANY($1::text[])`, [ids])).map(toRecord);
	}

	async listInboxJson(inbox: string, limit: number, until?: number): Promise<string> {
		const before = until === undefined ? '' : 'AND m.received < $3';
		const rows = await this.db.rows<RecordJsonRow>(
			`SELECT ${RECORD_JSON} FROM messages m WHERE m.inbox = $1 ${before} ORDER BY m.received DESC, m.seq DESC LIMIT $2`,
			until === undefined ? [inbox, limit] : [inbox, limit, until],
		);
		return recordArray(rows);
	}

	async listDomain(domain: string, limit: number, until?: number): Promise<MessageRecord[]> {
		// Inclusive: records of different inboxes (one SMTP transaction to several addresses) share a `received`.
		const atOrBefore = until === undefined ? '' : 'AND received <= $3';
		const rows = await this.db.rows<RecordRow>(
			`SELECT ${RECORD_COLUMNS} FROM messages WHERE domain = $1 ${atOrBefore} ORDER BY received DESC, seq DESC LIMIT $2`,
			until === undefined ? [domain, limit] : [domain, limit, until],
		);
		return rows.map(toRecord);
	}

	async countDomain(domain: string): Promise<number> {
		return (await this.db.row<{ n: number }>('SELECT count(*) AS n FROM messages WHERE domain = $1', [domain]))!.n;
	}

	async count(inbox: string): Promise<number> {
		return (await this.db.row<{ n: number }>('SELECT count(*) AS n FROM messages WHERE inbox = $1', [inbox]))!.n;
	}

	async get(inbox: string, id: string): Promise<MessageRecord | undefined> {
		const row = await this.db.row<RecordRow>(`SELECT ${RECORD_COLUMNS} FROM messages WHERE id = $1 AND inbox = $2`, [id, inbox]);
		return row && toRecord(row);
	}

	placeOf(id: string): Promise<{ inbox: string; domain: string } | undefined> {
		return this.db.row('SELECT inbox, domain FROM messages WHERE id = $1', [id]);
	}

	async rawSource(inbox: string, id: string): Promise<StoredBytes | undefined> {
		const row = await this.db.row<RawRow>(
			`SELECT c.id, c.raw, ${piecedLength('raw')} AS pieced
				FROM messages m JOIN contents c ON c.id = m.content_id WHERE m.id = $1 AND m.inbox = $2`,
			[id, inbox],
		);
		return row && this.storedRaw(row);
	}

	async content(inbox: string, id: string): Promise<MessageContent | undefined> {
		const row = await this.db.row<ContentRow>(
			`SELECT c.id, c.message_id, c.date, c.priority, c.headers, c.text, c.html,
					${piecedLength('text')} AS text_pieced,
					${piecedLength('html')} AS html_pieced
				FROM messages m JOIN contents c ON c.id = m.content_id WHERE m.id = $1 AND m.inbox = $2`,
			[id, inbox],
		);
		if (!row) return undefined;
		// Read when asked for, possibly after the transaction this store is bound to: on the pool.
		const { outside } = this.db;
		const pieces = new ContentPieces(outside);
		const bodyBytes = (kind: BodyKind, column: Buffer, pieced: number | null): StoredBytes =>
			pieced === null ? column : pieces.body(row.id, kind, pieced);
		return {
			messageId: row.message_id,
			date: row.date,
			priority: row.priority,
			headers: JSON.parse(row.headers) as [string, string][],
			text: () => storedText(bodyBytes('text', row.text, row.text_pieced)),
			html: async () => (row.html === null ? null : storedText(bodyBytes('html', row.html, row.html_pieced))),
			textBytes: () => Promise.resolve(bodyBytes('text', row.text, row.text_pieced)),
			htmlBytes: () => Promise.resolve(row.html === null ? null : bodyBytes('html', row.html, row.html_pieced)),
			raw: async () => {
				const raw = await outside.row<RawRow>(`SELECT c.id, c.raw, ${piecedLength('raw')} AS pieced FROM contents c WHERE c.id = $1`, [
					row.id,
				]);
				if (!raw) throw new DeletedWhileReadError();
				return this.storedRaw(raw);
			},
			attachments: () => new PostgresAttachmentStore(outside).ofContent(row.id),
		};
	}

	/** A content row's raw source: its column, or (the column left empty) its pieces. */
	private storedRaw(row: RawRow): StoredBytes {
		return row.pieced === null ? row.raw : new ContentPieces(this.db).raw(row.id, row.pieced);
	}
}

/**
 * The content row of a message, with its attachments and (a spooled message) its pieces, copied in from the spool files.
 * Attachment bytes are stored once per checksum: a message whose attachment is there already adds only its metadata.
 */
async function insertContent(tx: Db, mail: ParsedIncomingMail): Promise<number> {
	const { parsed } = mail;
	const { id } = (await tx.row<{ id: number }>(INSERT_CONTENT, [
		parsed.messageId,
		parsed.date,
		parsed.priority,
		JSON.stringify(parsed.headers),
		bodyColumn(parsed.text),
		parsed.html === null ? null : bodyColumn(parsed.html),
		isSpooled(mail.raw) ? NO_BYTES : asBuffer(mail.raw),
	]))!;
	const pieces = new ContentPieces(tx);
	if (isSpooled(mail.raw)) await pieces.writeRaw(id, mail.raw);
	if (isSpooled(parsed.text)) await pieces.writeBody(id, 'text', parsed.text);
	if (parsed.html !== null && isSpooled(parsed.html)) await pieces.writeBody(id, 'html', parsed.html);
	for (const [position, attachment] of parsed.attachments.entries()) {
		const { content } = attachment;
		const added = await tx.run(INSERT_ATTACHMENT_BYTES, [attachment.checksum, isSpooled(content) ? NO_BYTES : asBuffer(content)]);
		if (added && isSpooled(content)) await pieces.writeAttachment(attachment.checksum, content);
		// prettier-ignore
		await tx.run(INSERT_ATTACHMENT, [
			id, position, attachment.checksum, attachment.contentType, attachment.fileName, attachment.length, attachment.contentId,
			attachment.contentDisposition, attachment.transferEncoding,
		]);
	}
	return id;
}
