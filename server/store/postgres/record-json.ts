import { recordsJson } from '../records-json';

const json = (column: string) => `to_json(m.${column})::text`;

/**
 * The record of row `m` of messages as the JSON text the response schema's serializer makes of toRecord(row), up to
 * `"spam":`, as `head`, then `spam`. PostgreSQL renders listings, search and filter results, so their rows reach
 * JavaScript as two values each rather than twenty-one to be parsed and serialised again. The *_json columns hold
 * JSON.stringify output already; to_json quotes text as JSON.stringify does; `received` is printed from whole
 * milliseconds (no floating point) as toISOString prints it.
 */
export const RECORD_JSON = `'{"_id":' || ${json('id')} || ',"threadId":' || ${json('thread_id')}
	|| ',"from":' || m.from_json || ',"to":' || m.to_json
	|| ',"cc":' || coalesce(m.cc_json, 'null') || ',"bcc":' || coalesce(m.bcc_json, 'null') || ',"subject":' || ${json('subject')}
	|| ',"savedBy":' || coalesce(${json('saved_by')}, 'null') || ',"originalInbox":' || ${json('original_inbox')}
	|| ',"inbox":' || ${json('inbox')} || ',"domain":' || ${json('domain')}
	|| ',"received":"' || to_char(timestamp '1970-01-01' + m.received * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
	|| '","size":' || m.size || ',"attachments":' || coalesce(m.attachments_json, 'null') || ',"ip":' || ${json('ip')}
	|| ',"via":' || ${json('via')} || ',"folder":' || ${json('folder')} || ',"labels":' || m.labels_json
	|| ',"read":' || CASE WHEN m.read IS NULL THEN 'null' WHEN m.read = 1 THEN 'true' ELSE 'false' END
	|| ',"rtls":' || CASE WHEN m.rtls = 1 THEN 'true' ELSE 'false' END || ',"links":' || m.links_json
	|| ',"auth":' || coalesce(m.auth_json, 'null') || ',"strippedText":' || coalesce(${json('stripped_text')}, 'null')
	|| ',"strippedSignature":' || coalesce(${json('stripped_signature')}, 'null') || ',"codes":' || m.codes_json
	|| ',"messageId":' || coalesce(${json('message_id_header')}, 'null') || ',"date":' || coalesce(${json('date_header')}, 'null')
	|| ',"replyTo":' || coalesce(m.reply_to_json, 'null') || ',"attachmentFiles":' || coalesce(m.attachment_files_json, 'null')
	|| ',"spam":' AS head, m.spam`;

/** A row selected with RECORD_JSON. */
export interface RecordJsonRow {
	head: string;
	spam: number;
}

/** Rows selected with RECORD_JSON, as a JSON array of records. */
export const recordArray = (rows: RecordJsonRow[]) => recordsJson(rows.map((row) => [row.head, row.spam]));
