import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { downloadAttachments, type AttachmentSource } from '../shared/attachments';
import { replyToOf, senderFields } from '../shared/simplified-message';
import { mailroomRequest } from '../shared/transport';
import { messagePath } from './message-paths';

/** At most this many messages have their attachments (or, for older records, headers and attachment list) fetched at once. */
export const PARALLEL_MESSAGES = 4;

/** How many characters of `strippedText` the snippet keeps. */
export const SNIPPET_LENGTH = 200;

/** An attachment as a record names it (`attachmentFiles`). */
interface AttachmentFile {
	checksum: string;
	fileName: string | null;
	contentType: string;
	size: number;
}

/** What a listing, a search and a wait give of a message (spec 2.1 and what Mailroom adds): the parts a simplified item reads. */
export interface ListedRecord extends IDataObject {
	_id: string;
	inbox: string;
	received: string;
	read: boolean | null;
	attachments: string[] | null;
	strippedText?: string | null;
	auth?: { authenticated?: boolean } | null;
	/** '' when the message has none; null (or absent, from an older Mailroom) when the record does not keep it. */
	messageId?: string | null;
	date?: string | null;
	replyTo?: IDataObject[] | null;
	attachmentFiles?: AttachmentFile[] | null;
}

/** An attachment as GET …/messages/:id/attachments lists it. */
interface AttachmentMeta {
	checksum: string;
	contentType: string;
	fileName: string | null;
	length: number;
}

/** What a simplified item (or a download) needs beyond the spec's record. */
interface MessageExtras {
	messageId: string;
	/** The Date header as ISO 8601, or null when missing or invalid. */
	date: string | null;
	replyTo: IDataObject[] | null;
	attachments: AttachmentFile[];
}

/** The text a person wrote, on one line, cut to SNIPPET_LENGTH characters. */
export const snippetOf = (strippedText: string | null | undefined) =>
	strippedText == null ? null : strippedText.replace(/\s+/g, ' ').trim().slice(0, SNIPPET_LENGTH);

/** A Date header as ISO 8601, or null when it is missing or invalid. */
function isoDateOf(header: string | undefined) {
	const time = header ? new Date(header) : undefined;
	return time && !Number.isNaN(time.getTime()) ? time.toISOString() : null;
}

/** Runs `work` on each value, at most `limit` at once; the results in the order of the values. */
async function mapBounded<T, R>(values: T[], limit: number, work: (value: T) => Promise<R>): Promise<R[]> {
	const results: R[] = new Array<R>(values.length);
	let next = 0;
	const worker = async () => {
		while (next < values.length) {
			const index = next++;
			results[index] = await work(values[index]);
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, values.length) }, worker));
	return results;
}

/** The extras the record itself carries (Mailroom keeps them with each record), or undefined for a record without them. */
function recordExtras(record: ListedRecord): MessageExtras | undefined {
	if (typeof record.messageId !== 'string' || !Array.isArray(record.attachmentFiles)) return undefined;
	return {
		messageId: record.messageId,
		date: record.date ?? null,
		replyTo: record.replyTo ?? null,
		attachments: record.attachmentFiles,
	};
}

/**
 * The extras of a record that lacks them (mail stored before Mailroom kept them, or an older Mailroom): from the
 * message's headers (decoded) and, when it has attachments, its attachment list.
 */
async function requestedExtras(
	this: IExecuteFunctions,
	record: ListedRecord,
	itemIndex: number,
	withHeaders: boolean,
): Promise<MessageExtras> {
	const path = messagePath(record.inbox, record._id);
	const get = async <T>(route: string, qs?: IDataObject) => (await mailroomRequest.call(this, 'GET', route, { qs, itemIndex })) as T;
	const [headers, attachments] = await Promise.all([
		withHeaders ? get<Record<string, string[]>>(`${path}/headers`, { decoded: 1 }) : {},
		record.attachments?.length ? get<AttachmentMeta[]>(`${path}/attachments`) : [],
	]);
	const first = (name: string) => (headers as Record<string, string[]>)[name]?.[0]?.trim();
	return {
		messageId: first('message-id') ?? '',
		date: isoDateOf(first('date')),
		replyTo: replyToOf((headers as Record<string, string[]>)['reply-to']) as IDataObject[] | null,
		attachments: attachments.map(({ checksum, fileName, contentType, length }) => ({ checksum, fileName, contentType, size: length })),
	};
}

/** What a record needs beyond itself: no request when it carries its extras. */
async function extrasOf(this: IExecuteFunctions, record: ListedRecord, itemIndex: number, withHeaders = true): Promise<MessageExtras> {
	return recordExtras(record) ?? (await requestedExtras.call(this, record, itemIndex, withHeaders));
}

/** Where each attachment of a listed message downloads from, and what it is. */
const attachmentSources = (record: ListedRecord, attachments: AttachmentFile[]): AttachmentSource[] =>
	attachments.map((attachment) => ({
		path: `${messagePath(record.inbox, record._id)}/attachments/${attachment.checksum}`,
		fileName: attachment.fileName,
		checksum: attachment.checksum,
		contentType: attachment.contentType,
	}));

/** The simplified item of a listed message: who, what, when, a snippet, its state, codes and links, in flat fields. */
function simplifiedListItem(record: ListedRecord, { messageId, date, replyTo, attachments }: MessageExtras): IDataObject {
	return {
		_id: record._id,
		threadId: record.threadId,
		inbox: record.inbox,
		from: record.from,
		...senderFields(record.from),
		to: record.to,
		cc: record.cc,
		replyTo,
		subject: record.subject,
		// As the webhook payload dates it: the time received when the Date header is missing or invalid.
		date: date ?? record.received,
		messageId,
		snippet: snippetOf(record.strippedText),
		read: record.read === true,
		labels: record.labels,
		attachments: attachments.map(({ fileName, contentType, size, checksum }) => ({ filename: fileName, contentType, size, checksum })),
		codes: record.codes,
		links: record.links,
		authenticated: record.auth ? record.auth.authenticated === true : null,
		received: record.received,
	};
}

export interface ListOutputOptions {
	simplify: boolean;
	/** Attachment i of each message as the binary property `${prefix}${i}`; none when undefined. */
	attachmentPrefix?: string;
}

/**
 * The items of listed messages: each record as it is, or simplified; with the attachments as binary data when asked. A
 * record carries its Message-ID, Date, Reply-To and attachment names, so this costs no request but the downloads; only a
 * record without them (mail stored before Mailroom kept them) costs a request for the message's headers and one for its
 * attachment list, PARALLEL_MESSAGES messages at a time.
 */
export async function listedMessageItems(
	this: IExecuteFunctions,
	records: ListedRecord[],
	{ simplify, attachmentPrefix }: ListOutputOptions,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	if (!simplify && attachmentPrefix === undefined) return records.map((record) => ({ json: record }));
	return await mapBounded(records, PARALLEL_MESSAGES, async (record) => {
		const extras = await extrasOf.call(this, record, itemIndex, simplify);
		const json = simplify ? simplifiedListItem(record, extras) : record;
		if (attachmentPrefix === undefined || !extras.attachments.length) return { json };
		const sources = attachmentSources(record, extras.attachments);
		return { json, binary: await downloadAttachments.call(this, sources, attachmentPrefix, itemIndex) };
	});
}

/** Simplify of a single message (Wait For): the item as a list gives it. */
export async function simplifiedRecord(this: IExecuteFunctions, record: ListedRecord, itemIndex: number): Promise<IDataObject> {
	return simplifiedListItem(record, await extrasOf.call(this, record, itemIndex));
}
