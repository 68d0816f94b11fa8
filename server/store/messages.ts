import type { Statement } from 'better-sqlite3';
import type { Db } from './database';
import type { AddressObject, Folder, MessageRecord } from '../schemas/message';
import type { ParsedIncomingMail } from '../mail/incoming-mail';
import type { MessageContent } from '../mail/message-content';
import type { StoredBytes } from '../bytes/stored-bytes';
import { isSpooled } from '../bytes/spooled-bytes';
import { newId } from './ids';
import { ContentPieces, type BodyKind } from './content-pieces';
import { AttachmentStore } from './attachments';

export const RECORD_COLUMNS = `id, inbox, original_inbox, domain, received, subject, from_json, to_json, cc_json, bcc_json,
	size, attachments_json, ip, via, rtls, links_json, spam, folder, labels_json, read, saved_by`;

export interface RecordRow {
	id: string;
	inbox: string;
	original_inbox: string;
	domain: string;
	received: number;
	subject: string;
	from_json: string;
	to_json: string;
	cc_json: string | null;
	bcc_json: string | null;
	size: number;
	attachments_json: string | null;
	ip: string;
	via: string;
	rtls: number;
	links_json: string;
	spam: number;
	folder: Folder;
	labels_json: string;
	read: number | null;
	saved_by: string | null;
}

export function toRecord(row: RecordRow): MessageRecord {
	return {
		_id: row.id,
		from: JSON.parse(row.from_json) as AddressObject[],
		to: JSON.parse(row.to_json) as AddressObject[],
		cc: row.cc_json === null ? null : (JSON.parse(row.cc_json) as AddressObject[]),
		bcc: row.bcc_json === null ? null : (JSON.parse(row.bcc_json) as AddressObject[]),
		subject: row.subject,
		savedBy: row.saved_by,
		originalInbox: row.original_inbox,
		inbox: row.inbox,
		domain: row.domain,
		received: new Date(row.received).toISOString(),
		size: row.size,
		attachments: row.attachments_json === null ? null : (JSON.parse(row.attachments_json) as string[]),
		ip: row.ip,
		via: row.via,
		folder: row.folder,
		labels: JSON.parse(row.labels_json) as string[],
		read: row.read === null ? null : row.read === 1,
		rtls: row.rtls === 1,
		links: row.links_json === '[]' ? [] : (JSON.parse(row.links_json) as string[]),
		spam: row.spam,
	};
}

/**
 * One row as the JSON text the response schema's serializer makes of toRecord(row), up to `"spam":`: SQLite renders
 * listings, search and filter results, so their rows never cross into JavaScript as 21 values each to be parsed and
 * serialised again (a 100-record listing took about 1 ms that way, mostly making those values). `table` qualifies the
 * columns, for queries that join. The *_json columns hold JSON.stringify output already.
 * spam is left to JavaScript, which prints numbers as the serializer does (SQLite keeps 15 significant digits).
 * test/server/store/record-json.test.ts holds the two renderings to the same bytes.
 */
export function recordJsonHead(table?: string): string {
	const c = (column: string) => (table ? `${table}.${column}` : column);
	return `'{"_id":' || json_quote(${c('id')}) || ',"from":' || ${c('from_json')} || ',"to":' || ${c('to_json')}
	|| ',"cc":' || coalesce(${c('cc_json')}, 'null') || ',"bcc":' || coalesce(${c('bcc_json')}, 'null') || ',"subject":' || json_quote(${c('subject')})
	|| ',"savedBy":' || json_quote(${c('saved_by')}) || ',"originalInbox":' || json_quote(${c('original_inbox')}) || ',"inbox":' || json_quote(${c('inbox')})
	|| ',"domain":' || json_quote(${c('domain')}) || ',"received":"' || strftime('%Y-%m-%dT%H:%M:%fZ', ${c('received')} / 1000.0, 'unixepoch')
	|| '","size":' || ${c('size')} || ',"attachments":' || coalesce(${c('attachments_json')}, 'null') || ',"ip":' || json_quote(${c('ip')})
	|| ',"via":' || json_quote(${c('via')}) || ',"folder":' || json_quote(${c('folder')}) || ',"labels":' || ${c('labels_json')}
	|| ',"read":' || CASE WHEN ${c('read')} IS NULL THEN 'null' WHEN ${c('read')} = 1 THEN 'true' ELSE 'false' END
	|| ',"rtls":' || CASE WHEN ${c('rtls')} = 1 THEN 'true' ELSE 'false' END || ',"links":' || ${c('links_json')} || ',"spam":'`;
}

/** Rows of [recordJsonHead, spam] as a JSON array of records. */
export function recordsJson(rows: [head: string, spam: number][]): string {
	let json = '[';
	for (let i = 0; i < rows.length; i++) json += `${i === 0 ? '' : ','}${rows[i][0]}${rows[i][1]}}`;
	return `${json}]`;
}

const NO_BYTES = Buffer.alloc(0);

const jsonOrNull = (value: unknown[] | null) => (value === null ? null : JSON.stringify(value));

export class MessageStore {
	private readonly insertContent: Statement;
	private readonly insertMessage: Statement;
	private readonly insertAttachmentContent: Statement;
	private readonly insertAttachment: Statement;
	private readonly selectLastReceived: Statement;
	private readonly selectInbox: Statement;
	private readonly selectInboxUntil: Statement;
	private readonly selectDomain: Statement;
	private readonly selectDomainUntil: Statement;
	private readonly selectDomainCount: Statement;
	private readonly selectOne: Statement;
	private readonly selectPlace: Statement;
	private readonly selectCount: Statement;
	private readonly selectContent: Statement;
	private readonly selectRaw: Statement;
	private readonly selectRawBlob: Statement;
	private readonly pieces: ContentPieces;
	private readonly attachmentStore: AttachmentStore;

	constructor(db: Db) {
		this.pieces = new ContentPieces(db);
		this.attachmentStore = new AttachmentStore(db);
		this.insertContent = db.prepare(
			'INSERT INTO contents (message_id, date, priority, headers, text, html, raw) VALUES (?, ?, ?, ?, ?, ?, ?)',
		);
		this.insertMessage = db.prepare(`INSERT INTO messages (${RECORD_COLUMNS}, content_id)
			VALUES (@id, @inbox, @original_inbox, @domain, @received, @subject, @from_json, @to_json, @cc_json, @bcc_json,
				@size, @attachments_json, @ip, @via, @rtls, @links_json, @spam, 'inbox', '[]', NULL, NULL, @content_id)`);
		this.insertAttachmentContent = db.prepare('INSERT OR IGNORE INTO attachment_contents (checksum, content) VALUES (?, ?)');
		this.insertAttachment = db.prepare(`INSERT INTO content_attachments
			(content_id, position, checksum, content_type, file_name, length, content_id_header, content_disposition, transfer_encoding)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
		this.selectLastReceived = db.prepare('SELECT received FROM messages WHERE inbox = ? ORDER BY received DESC LIMIT 1').pluck();
		// Read from the covering index messages_inbox_received alone.
		const listing = `SELECT ${recordJsonHead()}, spam FROM messages WHERE inbox = ?`;
		this.selectInbox = db.prepare(`${listing} ORDER BY received DESC, seq DESC LIMIT ?`).raw();
		this.selectInboxUntil = db.prepare(`${listing} AND received < ? ORDER BY received DESC, seq DESC LIMIT ?`).raw();
		const domainListing = `SELECT ${RECORD_COLUMNS} FROM messages WHERE domain = ?`;
		this.selectDomain = db.prepare(`${domainListing} ORDER BY received DESC, seq DESC LIMIT ?`);
		// Inclusive: records of different inboxes (one SMTP transaction to several addresses) share a `received`.
		this.selectDomainUntil = db.prepare(`${domainListing} AND received <= ? ORDER BY received DESC, seq DESC LIMIT ?`);
		this.selectDomainCount = db.prepare('SELECT count(*) FROM messages WHERE domain = ?').pluck();
		this.selectOne = db.prepare(`SELECT ${RECORD_COLUMNS} FROM messages WHERE id = ? AND inbox = ?`);
		this.selectPlace = db.prepare('SELECT inbox, domain FROM messages WHERE id = ?');
		this.selectCount = db.prepare('SELECT count(*) FROM messages WHERE inbox = ?').pluck();
		this.selectContent = db.prepare(`SELECT c.id, c.message_id, c.date, c.priority, c.headers, c.text, c.html
			FROM messages m JOIN contents c ON c.id = m.content_id WHERE m.id = ? AND m.inbox = ?`);
		this.selectRawBlob = db.prepare('SELECT raw FROM contents WHERE id = ?').pluck();
		this.selectRaw = db.prepare('SELECT c.id, c.raw FROM messages m JOIN contents c ON c.id = m.content_id WHERE m.id = ? AND m.inbox = ?');
	}

	/** Stores a message: its content once, one record per recipient. Call inside a transaction. */
	insert(mail: ParsedIncomingMail): MessageRecord[] {
		const { parsed } = mail;
		const contentId = this.insertContent.run(
			parsed.messageId,
			parsed.date,
			parsed.priority,
			JSON.stringify(parsed.headers),
			isSpooled(parsed.text) ? '' : parsed.text,
			parsed.html !== null && isSpooled(parsed.html) ? '' : parsed.html,
			isSpooled(mail.raw) ? NO_BYTES : mail.raw,
		).lastInsertRowid;
		// A spooled (large) message goes in as pieces, its raw and attachment columns (and large bodies) left empty (see ContentPieces).
		if (isSpooled(mail.raw)) this.pieces.writeRaw(contentId, mail.raw);
		if (isSpooled(parsed.text)) this.pieces.writeBody(contentId, 'text', parsed.text);
		if (parsed.html !== null && isSpooled(parsed.html)) this.pieces.writeBody(contentId, 'html', parsed.html);
		parsed.attachments.forEach((attachment, position) => {
			const { content } = attachment;
			const added = this.insertAttachmentContent.run(attachment.checksum, isSpooled(content) ? NO_BYTES : content).changes > 0;
			if (added && isSpooled(content)) this.pieces.writeAttachment(attachment.checksum, content);
			this.insertAttachment.run(
				contentId,
				position,
				attachment.checksum,
				attachment.contentType,
				attachment.fileName,
				attachment.length,
				attachment.contentId,
				attachment.contentDisposition,
				attachment.transferEncoding,
			);
		});
		const shared = {
			received: mail.received.getTime(),
			subject: parsed.subject,
			from_json: JSON.stringify(parsed.from),
			to_json: JSON.stringify(parsed.to),
			cc_json: jsonOrNull(parsed.cc),
			bcc_json: jsonOrNull(parsed.bcc),
			size: mail.raw.byteLength,
			attachments_json: parsed.attachments.length ? JSON.stringify(parsed.attachments.map((a) => a.checksum)) : null,
			ip: mail.ip,
			via: mail.via,
			rtls: mail.rtls ? 1 : 0,
			links_json: JSON.stringify(parsed.links),
			spam: parsed.spam,
			content_id: contentId,
		};
		return mail.recipients.map((recipient) => {
			// Strictly increasing per inbox, so paging with `until` never splits messages that share a millisecond.
			const last = this.selectLastReceived.get(recipient.inbox) as number | undefined;
			const received = last === undefined || last < shared.received ? shared.received : last + 1;
			const row = {
				...shared,
				received,
				id: newId(),
				inbox: recipient.inbox,
				original_inbox: recipient.originalInbox,
				domain: recipient.domain,
			};
			this.insertMessage.run(row);
			// Built from the parse rather than by reading back the JSON just written: this runs for every message.
			return {
				_id: row.id,
				from: parsed.from,
				to: parsed.to,
				cc: parsed.cc,
				bcc: parsed.bcc,
				subject: parsed.subject,
				savedBy: null,
				originalInbox: recipient.originalInbox,
				inbox: recipient.inbox,
				domain: recipient.domain,
				received: new Date(received).toISOString(),
				size: shared.size,
				attachments: parsed.attachments.length ? parsed.attachments.map((a) => a.checksum) : null,
				ip: mail.ip,
				via: mail.via,
				folder: 'inbox',
				labels: [],
				read: null,
				rtls: mail.rtls,
				links: parsed.links,
				spam: parsed.spam,
			};
		});
	}

	/** The records as a JSON array, newest first; `until` (epoch ms) keeps only messages received before it. */
	listInboxJson(inbox: string, limit: number, until?: number): string {
		return recordsJson(
			(until === undefined ? this.selectInbox.all(inbox, limit) : this.selectInboxUntil.all(inbox, until, limit)) as [string, number][],
		);
	}

	/**
	 * Every inbox of a domain, newest first. `until` (epoch ms) keeps messages received at or before it:
	 * the next page repeats the boundary records, which callers skip by `_id`, so none is lost.
	 */
	listDomain(domain: string, limit: number, until?: number): MessageRecord[] {
		const rows = until === undefined ? this.selectDomain.all(domain, limit) : this.selectDomainUntil.all(domain, until, limit);
		return (rows as RecordRow[]).map(toRecord);
	}

	countDomain(domain: string): number {
		return this.selectDomainCount.get(domain) as number;
	}

	count(inbox: string): number {
		return this.selectCount.get(inbox) as number;
	}

	get(inbox: string, id: string): MessageRecord | undefined {
		const row = this.selectOne.get(id, inbox) as RecordRow | undefined;
		return row && toRecord(row);
	}

	/** The inbox holding the record `id` (ids are unique across inboxes), and its domain. */
	placeOf(id: string): { inbox: string; domain: string } | undefined {
		return this.selectPlace.get(id) as { inbox: string; domain: string } | undefined;
	}

	/** Only the raw source, without assembling a pieced one in memory. */
	rawSource(inbox: string, id: string): StoredBytes | undefined {
		const row = this.selectRaw.get(id, inbox) as { id: number; raw: Buffer } | undefined;
		return row && this.storedRaw(row.id, row.raw);
	}

	content(inbox: string, id: string): MessageContent | undefined {
		const row = this.selectContent.get(id, inbox) as
			| { id: number; message_id: string; date: string | null; priority: string; headers: string; text: string; html: string | null }
			| undefined;
		if (!row) return undefined;
		const { pieces } = this;
		// An empty column with pieces means a large body; an empty one without them, an empty body.
		const bodyBytes = (kind: BodyKind, column: string): StoredBytes =>
			(column === '' && pieces.bodySource(row.id, kind)) || Buffer.from(column);
		return {
			messageId: row.message_id,
			date: row.date,
			priority: row.priority,
			headers: JSON.parse(row.headers) as [string, string][],
			get text() {
				return row.text === '' ? (pieces.body(row.id, 'text') ?? '') : row.text;
			},
			get html() {
				return row.html === '' ? (pieces.body(row.id, 'html') ?? '') : row.html;
			},
			textBytes: () => bodyBytes('text', row.text),
			htmlBytes: () => (row.html === null ? null : bodyBytes('html', row.html)),
			raw: () => this.storedRaw(row.id, this.selectRawBlob.get(row.id) as Buffer),
			attachments: () => this.attachmentStore.ofContent(row.id),
		};
	}

	/** A content row's raw source: its blob, or (the blob left empty) its pieces. */
	private storedRaw(contentId: number, blob: Buffer): StoredBytes {
		return (blob.length === 0 && this.pieces.rawSource(contentId)) || blob;
	}
}
