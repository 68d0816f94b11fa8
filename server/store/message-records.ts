import type { AddressObject, AttachmentFile, Folder, MessageRecord } from '../schemas/message';
import type { ParsedIncomingMail, Recipient } from '../mail/incoming-mail';
import type { ParsedMail } from '../mail/parsed-mail';
import type { MessageAuth } from '../schemas/sender-auth';

/** The columns of a message record, in both engines' `messages` table. */
export const RECORD_COLUMNS = `id, inbox, original_inbox, domain, received, subject, from_json, to_json, cc_json, bcc_json,
	size, attachments_json, ip, via, rtls, links_json, spam, folder, labels_json, read, saved_by, thread_id,
	auth_json, stripped_text, stripped_signature, codes_json, message_id_header, date_header, reply_to_json, attachment_files_json`;

/** A row of RECORD_COLUMNS, as either engine reads it (integers as numbers, JSON as text). */
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
	thread_id: string;
	auth_json: string | null;
	stripped_text: string | null;
	stripped_signature: string | null;
	codes_json: string;
	message_id_header: string | null;
	date_header: string | null;
	reply_to_json: string | null;
	attachment_files_json: string | null;
}

export function toRecord(row: RecordRow): MessageRecord {
	return {
		_id: row.id,
		threadId: row.thread_id,
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
		auth: row.auth_json === null ? null : (JSON.parse(row.auth_json) as MessageAuth),
		strippedText: row.stripped_text,
		strippedSignature: row.stripped_signature,
		codes: row.codes_json === '[]' ? [] : (JSON.parse(row.codes_json) as string[]),
		messageId: row.message_id_header,
		date: row.date_header,
		replyTo: row.reply_to_json === null ? null : (JSON.parse(row.reply_to_json) as AddressObject[]),
		attachmentFiles: row.attachment_files_json === null ? null : (JSON.parse(row.attachment_files_json) as AttachmentFile[]),
		spam: row.spam,
	};
}

/** What a record tells of each attachment, so a listing names them without a request per message. */
const attachmentFiles = (parsed: ParsedMail): AttachmentFile[] =>
	parsed.attachments.map(({ checksum, fileName, contentType, length, contentId }) => ({
		checksum,
		fileName,
		contentType,
		size: length,
		contentId,
	}));

const jsonOrNull = (value: unknown[] | null) => (value === null ? null : JSON.stringify(value));

/** The column values every record of one message shares (the per-recipient ones, and `received`, are each record's own). */
export function sharedValues(mail: ParsedIncomingMail) {
	const { parsed } = mail;
	return {
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
		auth_json: mail.auth ? JSON.stringify(mail.auth) : null,
		stripped_text: parsed.strippedText,
		stripped_signature: parsed.strippedSignature,
		codes_json: JSON.stringify(parsed.codes),
		message_id_header: parsed.messageId,
		date_header: parsed.date,
		reply_to_json: jsonOrNull(parsed.replyTo),
		attachment_files_json: JSON.stringify(attachmentFiles(parsed)),
	};
}

/**
 * The record just stored for one recipient, built from the parse rather than by reading back the JSON just written:
 * this runs for every message.
 */
export function storedRecord(
	mail: ParsedIncomingMail,
	recipient: Recipient,
	id: string,
	received: number,
	threadId: string,
): MessageRecord {
	const { parsed } = mail;
	return {
		_id: id,
		threadId,
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
		size: mail.raw.byteLength,
		attachments: parsed.attachments.length ? parsed.attachments.map((a) => a.checksum) : null,
		ip: mail.ip,
		via: mail.via,
		folder: 'inbox',
		labels: [],
		read: null,
		rtls: mail.rtls,
		links: parsed.links,
		auth: mail.auth ?? null,
		strippedText: parsed.strippedText,
		strippedSignature: parsed.strippedSignature,
		codes: parsed.codes,
		messageId: parsed.messageId,
		date: parsed.date,
		replyTo: parsed.replyTo,
		attachmentFiles: attachmentFiles(parsed),
		spam: parsed.spam,
	};
}

/** Strictly increasing per inbox, so paging with `until` never splits messages that share a millisecond. */
export const nextReceived = (received: number, lastOfInbox: number | undefined) =>
	lastOfInbox === undefined || lastOfInbox < received ? received : lastOfInbox + 1;
