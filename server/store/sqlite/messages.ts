import type { Statement } from 'better-sqlite3';
import type { Db } from './database';
import type { MessageRecord } from '../../schemas/message';
import type { ParsedIncomingMail } from '../../mail/incoming-mail';
import type { MessageContent } from '../../mail/message-content';
import type { StoredBytes } from '../../bytes/stored-bytes';
import type { MessageStore } from '../store';
import { isSpooled } from '../../bytes/spooled-bytes';
import { newId } from '../ids';
import { RECORD_COLUMNS, nextReceived, sharedValues, storedRecord, toRecord, type RecordRow } from '../message-records';
import { recordsJson } from '../records-json';
import { lookupCandidates, messageKeyOf, recordThread, threadHeadersOf, type RecordThread, type ThreadScope } from '../../mail/threading';
import { ContentPieces, type BodyKind } from './content-pieces';
import { SqliteAttachmentStore } from './attachments';

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
	return `'{"_id":' || json_quote(${c('id')}) || ',"threadId":' || json_quote(${c('thread_id')})
	|| ',"from":' || ${c('from_json')} || ',"to":' || ${c('to_json')}
	|| ',"cc":' || coalesce(${c('cc_json')}, 'null') || ',"bcc":' || coalesce(${c('bcc_json')}, 'null') || ',"subject":' || json_quote(${c('subject')})
	|| ',"savedBy":' || json_quote(${c('saved_by')}) || ',"originalInbox":' || json_quote(${c('original_inbox')}) || ',"inbox":' || json_quote(${c('inbox')})
	|| ',"domain":' || json_quote(${c('domain')}) || ',"received":"' || strftime('%Y-%m-%dT%H:%M:%fZ', ${c('received')} / 1000.0, 'unixepoch')
	|| '","size":' || ${c('size')} || ',"attachments":' || coalesce(${c('attachments_json')}, 'null') || ',"ip":' || json_quote(${c('ip')})
	|| ',"via":' || json_quote(${c('via')}) || ',"folder":' || json_quote(${c('folder')}) || ',"labels":' || ${c('labels_json')}
	|| ',"read":' || CASE WHEN ${c('read')} IS NULL THEN 'null' WHEN ${c('read')} = 1 THEN 'true' ELSE 'false' END
	|| ',"rtls":' || CASE WHEN ${c('rtls')} = 1 THEN 'true' ELSE 'false' END || ',"links":' || ${c('links_json')}
	|| ',"auth":' || coalesce(${c('auth_json')}, 'null') || ',"strippedText":' || json_quote(${c('stripped_text')})
	|| ',"strippedSignature":' || json_quote(${c('stripped_signature')}) || ',"codes":' || ${c('codes_json')}
	|| ',"messageId":' || json_quote(${c('message_id_header')}) || ',"date":' || json_quote(${c('date_header')})
	|| ',"replyTo":' || coalesce(${c('reply_to_json')}, 'null') || ',"attachmentFiles":' || coalesce(${c('attachment_files_json')}, 'null')
	|| ',"spam":'`;
}

const NO_BYTES = Buffer.alloc(0);

export class SqliteMessageStore implements MessageStore {
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
	private readonly attachmentStore: SqliteAttachmentStore;
	private readonly selectByIds: Statement;
	private readonly selectOwner: Statement;
	private readonly selectFoundThread: Statement;

	constructor(db: Db) {
		this.pieces = new ContentPieces(db);
		this.attachmentStore = new SqliteAttachmentStore(db);
		this.insertContent = db.prepare(
			'INSERT INTO contents (message_id, date, priority, headers, text, html, raw) VALUES (?, ?, ?, ?, ?, ?, ?)',
		);
		this.insertMessage = db.prepare(`INSERT INTO messages (${RECORD_COLUMNS}, content_id, thread_account, message_key)
			VALUES (@id, @inbox, @original_inbox, @domain, @received, @subject, @from_json, @to_json, @cc_json, @bcc_json,
				@size, @attachments_json, @ip, @via, @rtls, @links_json, @spam, 'inbox', '[]', NULL, NULL, @thread_id,
				@auth_json, @stripped_text, @stripped_signature, @codes_json, @message_id_header, @date_header, @reply_to_json,
				@attachment_files_json, @content_id, @thread_account, @message_key)`);
		this.selectOwner = db
			.prepare('SELECT owner FROM addresses WHERE email = ? UNION ALL SELECT owner FROM domains WHERE domain = ? LIMIT 1')
			.pluck();
		// The thread of the first stored or sent message a key names, in the keys' order (see foundThread in sql/threads.ts).
		this.selectFoundThread = db
			.prepare(
				`SELECT thread_id FROM (SELECT k.key, coalesce((SELECT thread_id FROM messages WHERE message_key = k.value LIMIT 1),
					(SELECT thread_id FROM outgoing_messages WHERE message_key = k.value LIMIT 1)) AS thread_id FROM json_each(?) k)
				WHERE thread_id IS NOT NULL ORDER BY key LIMIT 1`,
			)
			.pluck();
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
		this.selectByIds = db.prepare(`SELECT ${RECORD_COLUMNS} FROM messages WHERE id IN (SELECT value FROM json_each(?))`);
		this.selectCount = db.prepare('SELECT count(*) FROM messages WHERE inbox = ?').pluck();
		this.selectContent = db.prepare(`SELECT c.id, c.message_id, c.date, c.priority, c.headers, c.text, c.html
			FROM messages m JOIN contents c ON c.id = m.content_id WHERE m.id = ? AND m.inbox = ?`);
		this.selectRawBlob = db.prepare('SELECT raw FROM contents WHERE id = ?').pluck();
		this.selectRaw = db.prepare('SELECT c.id, c.raw FROM messages m JOIN contents c ON c.id = m.content_id WHERE m.id = ? AND m.inbox = ?');
	}

	async insert(mail: ParsedIncomingMail): Promise<MessageRecord[]> {
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
		const shared = { ...sharedValues(mail), content_id: contentId };
		const threading = threadHeadersOf(parsed.messageId, parsed.headers);
		const candidates = lookupCandidates(threading);
		// The records of one scope (the account owning the inbox, or none) share a thread, looked up once.
		const threads = new Map<ThreadScope, RecordThread>();
		return mail.recipients.map((recipient) => {
			const id = newId();
			const received = nextReceived(mail.received.getTime(), this.selectLastReceived.get(recipient.inbox) as number | undefined);
			const scope = (this.selectOwner.get(recipient.inbox, recipient.domain) as string | undefined) ?? null;
			let thread = threads.get(scope);
			if (!thread) {
				const keys = candidates.map((candidate) => messageKeyOf(scope, candidate));
				const found = keys.length ? (this.selectFoundThread.get(JSON.stringify(keys)) as string | undefined) : undefined;
				thread = recordThread(threading, scope, found, id);
				threads.set(scope, thread);
			}
			this.insertMessage.run({
				...shared,
				received,
				id,
				inbox: recipient.inbox,
				original_inbox: recipient.originalInbox,
				domain: recipient.domain,
				thread_id: thread.threadId,
				thread_account: scope,
				message_key: thread.messageKey,
			});
			return storedRecord(mail, recipient, id, received, thread.threadId);
		});
	}

	async byIds(ids: string[]): Promise<MessageRecord[]> {
		return (this.selectByIds.all(JSON.stringify(ids)) as RecordRow[]).map(toRecord);
	}

	async listInboxJson(inbox: string, limit: number, until?: number): Promise<string> {
		return recordsJson(
			(until === undefined ? this.selectInbox.all(inbox, limit) : this.selectInboxUntil.all(inbox, until, limit)) as [string, number][],
		);
	}

	async listDomain(domain: string, limit: number, until?: number): Promise<MessageRecord[]> {
		const rows = until === undefined ? this.selectDomain.all(domain, limit) : this.selectDomainUntil.all(domain, until, limit);
		return (rows as RecordRow[]).map(toRecord);
	}

	async countDomain(domain: string): Promise<number> {
		return this.selectDomainCount.get(domain) as number;
	}

	async count(inbox: string): Promise<number> {
		return this.selectCount.get(inbox) as number;
	}

	async get(inbox: string, id: string): Promise<MessageRecord | undefined> {
		const row = this.selectOne.get(id, inbox) as RecordRow | undefined;
		return row && toRecord(row);
	}

	async placeOf(id: string): Promise<{ inbox: string; domain: string } | undefined> {
		return this.selectPlace.get(id) as { inbox: string; domain: string } | undefined;
	}

	async rawSource(inbox: string, id: string): Promise<StoredBytes | undefined> {
		const row = this.selectRaw.get(id, inbox) as { id: number; raw: Buffer } | undefined;
		return row && this.storedRaw(row.id, row.raw);
	}

	async content(inbox: string, id: string): Promise<MessageContent | undefined> {
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
			text: async () => (row.text === '' ? (pieces.body(row.id, 'text') ?? '') : row.text),
			html: async () => (row.html === '' ? (pieces.body(row.id, 'html') ?? '') : row.html),
			textBytes: async () => bodyBytes('text', row.text),
			htmlBytes: async () => (row.html === null ? null : bodyBytes('html', row.html)),
			raw: async () => this.storedRaw(row.id, this.selectRawBlob.get(row.id) as Buffer),
			attachments: async () => this.attachmentStore.ofContent(row.id),
		};
	}

	/** A content row's raw source: its blob, or (the blob left empty) its pieces. */
	private storedRaw(contentId: number, blob: Buffer): StoredBytes {
		return (blob.length === 0 && this.pieces.rawSource(contentId)) || blob;
	}
}
