import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { attachmentDownloadOptions, attachmentPrefix, downloadAttachments, type AttachmentDownload } from '../../shared/attachments';
import { mailroomRequest } from '../../shared/transport';
import { messageContentPath, messagePath } from '../message-paths';
import { fromVersion1_1, inVersion1 } from '../versions';
import type { AttachmentMeta } from './message-actions';

const get = { resource: ['message'], operation: ['get'] };

const simplifyDescription =
	'Whether to return a compact item (ID, inbox, from, to, cc, subject, time received, text, HTML, attachments, labels, folder, read and starred) instead of the whole record with the headers';

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

/** The parts of a message record (spec 2.1) a simplified item keeps. */
interface MessageRecord extends IDataObject {
	_id: string;
	inbox: string;
	savedBy: string | null;
}

const SIMPLE_FIELDS = ['_id', 'inbox', 'from', 'to', 'cc', 'subject', 'received'];

/** The compact item: the fields and attachment list of the Mailroom Trigger's simplified item, and the message's state. */
function simplified(record: MessageRecord, text: string, html: string, attachments: AttachmentMeta[]): IDataObject {
	return {
		...Object.fromEntries(SIMPLE_FIELDS.map((field) => [field, record[field]])),
		text,
		html,
		attachments: attachments.map(({ fileName, contentType, length, checksum, contentId }) => ({
			filename: fileName,
			contentType,
			size: length,
			checksum,
			contentId,
		})),
		labels: record.labels,
		folder: record.folder,
		read: record.read,
		starred: record.savedBy !== null,
	};
}

/**
 * Message → Get: the record with the text and HTML bodies and the attachments, in four requests (five with the
 * headers), and the attachments as binary data when asked.
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
	const json = async <T>(route: string) => (await mailroomRequest.call(this, 'GET', route, { itemIndex })) as T;
	const text = async (route: string) => (await mailroomRequest.call(this, 'GET', route, { text: true, itemIndex })) as string;
	const [record, plain, html, attachments, headers] = await Promise.all([
		json<MessageRecord>(path),
		text(messageContentPath('text', email, messageId)),
		text(messageContentPath('dirty', email, messageId)),
		json<AttachmentMeta[]>(`${path}/attachments`),
		simplify ? undefined : json<IDataObject>(`${path}/headers`),
	]);
	const output = simplify
		? simplified(record, plain, html, attachments)
		: { ...record, text: plain, html, headers, attachmentNames: attachments.map((attachment) => attachment.fileName) };
	if (!options.downloadAttachments) return output;
	const sources = attachments.map((attachment) => ({ ...attachment, path: `${path}/attachments/${attachment.checksum}` }));
	return { json: output, binary: await downloadAttachments.call(this, sources, attachmentPrefix(options), itemIndex) };
}
