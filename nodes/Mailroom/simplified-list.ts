import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { downloadAttachments, type AttachmentSource } from '../shared/attachments';
import { replyToOf, senderFields } from '../shared/simplified-message';
import { mailroomRequest } from '../shared/transport';
import { messagePath } from './message-paths';

/** At most this many messages have their headers and attachment list fetched at once. */
export const PARALLEL_MESSAGES = 4;

/** How many characters of `strippedText` the snippet keeps. */
export const SNIPPET_LENGTH = 200;

/** What a listing, a search and a wait give of a message (spec 2.1): the parts a simplified item reads. */
export interface ListedRecord extends IDataObject {
	_id: string;
	inbox: string;
	received: string;
	read: boolean | null;
	attachments: string[] | null;
	strippedText?: string | null;
	auth?: { authenticated?: boolean } | null;
}

/** An attachment as GET …/messages/:id/attachments lists it. */
interface AttachmentMeta {
	checksum: string;
	contentType: string;
	fileName: string | null;
	length: number;
}

/** What a record lacks and a simplified item gives: from the message's headers and its attachment list. */
interface MessageExtras {
	headers: Record<string, string[]>;
	attachments: AttachmentMeta[];
}

/** The text a person wrote, on one line, cut to SNIPPET_LENGTH characters. */
export const snippetOf = (strippedText: string | null | undefined) =>
	strippedText == null ? null : strippedText.replace(/\s+/g, ' ').trim().slice(0, SNIPPET_LENGTH);

/** The Date header as ISO 8601, as the webhook payload gives it: the time received when it is missing or invalid. */
function dateOf(header: string | undefined, received: string) {
	const time = header ? new Date(header) : undefined;
	return time && !Number.isNaN(time.getTime()) ? time.toISOString() : received;
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

/** The headers (decoded) of a message, and its attachment list when the record says it has attachments. */
async function extrasOf(this: IExecuteFunctions, record: ListedRecord, itemIndex: number, withHeaders = true): Promise<MessageExtras> {
	const path = messagePath(record.inbox, record._id);
	const get = async <T>(route: string, qs?: IDataObject) => (await mailroomRequest.call(this, 'GET', route, { qs, itemIndex })) as T;
	const [headers, attachments] = await Promise.all([
		withHeaders ? get<Record<string, string[]>>(`${path}/headers`, { decoded: 1 }) : {},
		record.attachments?.length ? get<AttachmentMeta[]>(`${path}/attachments`) : [],
	]);
	return { headers, attachments };
}

/** Where each attachment of a listed message downloads from, and what it is. */
const attachmentSources = (record: ListedRecord, attachments: AttachmentMeta[]): AttachmentSource[] =>
	attachments.map((attachment) => ({
		path: `${messagePath(record.inbox, record._id)}/attachments/${attachment.checksum}`,
		fileName: attachment.fileName,
		checksum: attachment.checksum,
		contentType: attachment.contentType,
	}));

/** The simplified item of a listed message: who, what, when, a snippet, its state, codes and links, in flat fields. */
function simplifiedListItem(record: ListedRecord, { headers, attachments }: MessageExtras): IDataObject {
	const first = (name: string) => headers[name]?.[0]?.trim();
	return {
		_id: record._id,
		threadId: record.threadId,
		inbox: record.inbox,
		from: record.from,
		...senderFields(record.from),
		to: record.to,
		cc: record.cc,
		replyTo: replyToOf(headers['reply-to']),
		subject: record.subject,
		date: dateOf(first('date'), record.received),
		messageId: first('message-id') ?? '',
		snippet: snippetOf(record.strippedText),
		read: record.read === true,
		labels: record.labels,
		attachments: attachments.map(({ fileName, contentType, length, checksum }) => ({
			filename: fileName,
			contentType,
			size: length,
			checksum,
		})),
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
 * record has no Message-ID, Date, Reply-To or attachment names, so a simplified item (or a download) costs a request for
 * the message's headers and one for its attachment list when it has attachments, PARALLEL_MESSAGES messages at a time.
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
