import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import {
	attachmentDownloadOptions,
	attachmentPrefix,
	downloadAttachments,
	payloadAttachmentSources,
	type AttachmentDownload,
	type PayloadAttachment,
} from '../../shared/attachments';
import { simplifiedMessage } from '../../shared/simplified-message';
import { mailroomRequest } from '../../shared/transport';
import { messagePath } from '../message-paths';
import { fromVersion1_1, inVersion1 } from '../versions';

const get = { resource: ['message'], operation: ['get'] };

const simplifyDescription =
	"Whether to return the Mailroom Trigger's simplified item (ID, thread, inbox, from with the first sender flat, to, cc, Reply-To, subject, date, Message-ID, text, HTML, attachments with their download URL, codes, time received) with the message's labels, folder, read and starred, instead of its whole record with text, HTML, headers and attachment names. Text and HTML are as received (HTML null for mail without an HTML part).";

export const messageGetProperties: INodeProperties[] = [
	// Version 1's Get output the record: with Simplify off by default, its workflows keep every field they used.
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: false,
		displayOptions: inVersion1(get),
		description: simplifyDescription,
	},
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		displayOptions: fromVersion1_1(get),
		description: simplifyDescription,
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: { show: get },
		description: "The message's attachments as binary data",
		options: attachmentDownloadOptions,
	},
];

/** The parts of a message record (spec 2.1) Get reads: the message's state. */
interface MessageRecord extends IDataObject {
	labels: string[];
	folder: string;
	read: boolean | null;
	savedBy: string | null;
}

/** The message as GET …/payload answers it: the webhook payload the Mailroom Trigger gets, here without the raw source. */
interface MessagePayload extends IDataObject {
	_id: string;
	inbox: string;
	text: string;
	html: string | null;
	attachments: PayloadAttachment[];
}

/**
 * Message → Get: the body, Cc and attachment list exactly as the Mailroom Trigger gets them (the webhook payload), the
 * message's state from its record, its headers with Simplify off, and the attachments as binary data when asked.
 */
export async function getMessage(
	this: IExecuteFunctions,
	email: string,
	messageId: string,
	itemIndex: number,
): Promise<IDataObject | INodeExecutionData> {
	const simplify = this.getNodeParameter('simplify', itemIndex) as boolean;
	const options = this.getNodeParameter('options', itemIndex, {}) as AttachmentDownload;
	const path = messagePath(email, messageId);
	const json = async <T>(route: string, qs?: IDataObject) => (await mailroomRequest.call(this, 'GET', route, { qs, itemIndex })) as T;
	const [payload, record, headers] = await Promise.all([
		// The raw source is the largest field, and Get does not output it.
		json<MessagePayload>(`${path}/payload`, { raw: 0 }),
		json<MessageRecord>(path),
		simplify ? undefined : json<IDataObject>(`${path}/headers`),
	]);
	const output = simplify
		? {
				...simplifiedMessage(payload),
				labels: record.labels,
				folder: record.folder,
				// The record's read is null until the message is marked either way: unread mail reads false, as in the lists.
				read: record.read === true,
				starred: record.savedBy !== null,
			}
		: {
				...record,
				text: payload.text,
				html: payload.html,
				headers,
				attachmentNames: payload.attachments.map((attachment) => attachment.filename),
			};
	if (!options.downloadAttachments) return output;
	const sources = payloadAttachmentSources(payload, payload.attachments);
	return { json: output, binary: await downloadAttachments.call(this, sources, attachmentPrefix(options), itemIndex) };
}
