import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { mailroomRequest } from '../../shared/transport';
import { inboxPath, messageContentPath, messagePath } from '../message-paths';

/**
 * Operations on one message (or a whole inbox) of the Message resource, beside listing, searching, waiting, Get and
 * Reply: its other parts, deleting, labels, folder, read flag, star, attachments.
 */
export const messageActionOptions: INodePropertyOptions[] = [
	{ name: 'Add Label', value: 'addLabel', description: 'Add a label to a message', action: 'Add a label to a message' },
	{
		name: 'Delete',
		value: 'delete',
		description: 'Delete a message with its attachments, for good (no undo)',
		action: 'Delete a message',
	},
	{
		name: 'Delete All',
		value: 'deleteAll',
		description: 'Delete every message of one of your private inboxes for good (no undo), except starred ones',
		action: 'Delete all messages of an inbox',
	},
	{
		name: 'Get Attachment',
		value: 'getAttachment',
		description: 'Download one attachment of a message as binary data',
		action: 'Get an attachment of a message',
	},
	{
		name: 'Get HTML',
		value: 'getHtml',
		description: 'Get the HTML body of a message sanitised (no scripts, styles, forms, remote images), or as received',
		action: 'Get the HTML of a message',
	},
	{
		name: 'Get Raw',
		value: 'getRaw',
		description: 'Get the original message source (RFC 5322), as received',
		action: 'Get the raw source of a message',
	},
	{ name: 'Mark as Read', value: 'markRead', description: 'Mark a message as read', action: 'Mark a message as read' },
	{ name: 'Mark as Unread', value: 'markUnread', description: 'Mark a message as unread', action: 'Mark a message as unread' },
	{ name: 'Move to Folder', value: 'moveToFolder', description: 'Move a message to another folder', action: 'Move a message to a folder' },
	{ name: 'Remove Label', value: 'removeLabel', description: 'Remove a label from a message', action: 'Remove a label from a message' },
	{
		name: 'Star',
		value: 'star',
		description: 'Star a message (a starred one stays starred); starred mail is never deleted by retention or Delete All',
		action: 'Star a message',
	},
	{
		name: 'Unstar',
		value: 'unstar',
		description: 'Unstar a message (an unstarred one stays unstarred)',
		action: 'Unstar a message',
	},
];

/**
 * Narrow reads beside Get, in every version: n8n's node creator lists a node's operations whatever their `@version`
 * rules, so an operation shown only in version 1 would be offered on a new node and then not found.
 */
export const narrowReadOptions: INodePropertyOptions[] = [
	{ name: 'Get Headers', value: 'getHeaders', description: 'Get the header lines of a message', action: 'Get the headers of a message' },
	{
		name: 'Get Text',
		value: 'getText',
		description: 'Get the plain text body of a message, links numbered',
		action: 'Get the text of a message',
	},
];

/** Every action but Delete All works on one message. */
export const ONE_MESSAGE_ACTIONS = [...messageActionOptions, ...narrowReadOptions]
	.map((option) => option.value as string)
	.filter((action) => action !== 'deleteAll');

const show = (operation: string[]) => ({ show: { resource: ['message'], operation } });

export const messageActionProperties: INodeProperties[] = [
	{
		displayName: 'Label',
		name: 'label',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'invoices',
		displayOptions: show(['addLabel', 'removeLabel']),
		description: 'The label (up to 64 characters)',
	},
	{
		displayName: 'Folder',
		name: 'folder',
		type: 'options',
		options: [
			{ name: 'All', value: 'all', description: 'Archived: out of the inbox, not spam or trash' },
			{ name: 'Inbox', value: 'inbox', description: 'Where new mail arrives' },
			{ name: 'Spam', value: 'spam', description: 'Unwanted mail' },
			{ name: 'Trash', value: 'trash', description: 'Mail to throw away (retention still decides when it is deleted)' },
		],
		default: 'inbox',
		displayOptions: show(['moveToFolder']),
		description: 'The folder to move the message to',
	},
	{
		displayName: 'Sanitized',
		name: 'sanitized',
		type: 'boolean',
		default: true,
		displayOptions: show(['getHtml']),
		description: 'Whether to get the HTML without scripts, styles, forms and event handlers, instead of as received',
	},
	{
		displayName: 'Load Remote Images',
		name: 'remoteImages',
		type: 'boolean',
		default: false,
		displayOptions: { show: { resource: ['message'], operation: ['getHtml'], sanitized: [true] } },
		description: 'Whether to keep images loaded from other servers (they tell the sender the mail was opened)',
	},
	{
		displayName: 'Attachment',
		name: 'attachment',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'invoice.pdf',
		displayOptions: show(['getAttachment']),
		description: 'The file name, MD5 checksum or Content-ID of the attachment (see the attachments field of the message)',
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		required: true,
		default: 'data',
		displayOptions: show(['getAttachment']),
		description: 'The name of the output binary field to put the file in',
	},
];

/** An attachment as GET …/messages/<id>/attachments lists it. */
interface AttachmentMeta extends IDataObject {
	checksum: string;
	contentType: string;
	fileName: string | null;
	length: number;
	contentId: string | null;
}

const stripBrackets = (value: string) => value.replace(/^<|>$/g, '');

async function getAttachment(this: IExecuteFunctions, path: string, itemIndex: number): Promise<INodeExecutionData> {
	const wanted = (this.getNodeParameter('attachment', itemIndex) as string).trim();
	const attachments = (await mailroomRequest.call(this, 'GET', `${path}/attachments`, { itemIndex })) as AttachmentMeta[];
	const meta = attachments.find(
		(a) =>
			a.checksum === wanted.toLowerCase() ||
			a.fileName === wanted ||
			(a.contentId !== null && stripBrackets(a.contentId) === stripBrackets(wanted)),
	);
	if (!meta) {
		const names = attachments.map((a) => a.fileName ?? a.checksum);
		throw new NodeOperationError(this.getNode(), `The message has no attachment "${wanted}"`, {
			itemIndex,
			description: names.length ? `Its attachments: ${names.join(', ')}` : 'It has no attachments.',
		});
	}
	const bytes = (await mailroomRequest.call(this, 'GET', `${path}/attachments/${meta.checksum}`, {
		binary: true,
		itemIndex,
	})) as Buffer;
	const binaryPropertyName = this.getNodeParameter('binaryPropertyName', itemIndex);
	const fileName = meta.fileName ?? meta.checksum;
	return {
		json: meta,
		binary: { [binaryPropertyName]: await this.helpers.prepareBinaryData(bytes, fileName, meta.contentType) },
	};
}

export async function executeMessageAction(
	this: IExecuteFunctions,
	operation: string,
	email: string,
	itemIndex: number,
): Promise<IDataObject | INodeExecutionData> {
	if (operation === 'deleteAll') {
		await mailroomRequest.call(this, 'DELETE', inboxPath(email), { itemIndex });
		return { email, deleted: true };
	}
	const messageId = (this.getNodeParameter('messageId', itemIndex) as string).trim();
	const path = messagePath(email, messageId);
	/** The JSON answer, passed on as the item. */
	const request = async (method: 'GET' | 'PUT' | 'DELETE', route: string) =>
		(await mailroomRequest.call(this, method, route, { itemIndex })) as IDataObject;
	/** A text answer: the raw source, a body. */
	const text = async (route: string, qs?: IDataObject) =>
		(await mailroomRequest.call(this, 'GET', route, { text: true, qs, itemIndex })) as string;
	const label = () => encodeURIComponent(this.getNodeParameter('label', itemIndex) as string);
	switch (operation) {
		case 'getRaw':
			return { email, messageId, raw: await text(messageContentPath('raw', email, messageId)) };
		case 'getText':
			return { email, messageId, text: await text(messageContentPath('text', email, messageId)) };
		case 'getHeaders':
			return { email, messageId, headers: await request('GET', `${path}/headers`) };
		case 'getHtml': {
			const sanitized = this.getNodeParameter('sanitized', itemIndex) as boolean;
			const images = sanitized && (this.getNodeParameter('remoteImages', itemIndex) as boolean);
			const html = await text(messageContentPath(sanitized ? 'body' : 'dirty', email, messageId), images ? { images: 1 } : {});
			return { email, messageId, html };
		}
		case 'getAttachment':
			return await getAttachment.call(this, path, itemIndex);
		case 'delete':
			return await request('DELETE', path);
		case 'addLabel':
			return await request('PUT', `${path}/labels/${label()}`);
		case 'removeLabel':
			return await request('DELETE', `${path}/labels/${label()}`);
		case 'moveToFolder':
			return await request('PUT', `${path}/folder/${this.getNodeParameter('folder', itemIndex) as string}`);
		case 'markRead':
		case 'markUnread':
			return await request('PUT', `${path}/read/${operation === 'markRead'}`);
		case 'star':
		case 'unstar':
			// Idempotent: a retried run leaves the message as the operation says.
			return await request('PUT', `${path}/star/${operation === 'star'}`);
	}
	throw new NodeOperationError(this.getNode(), `Unknown message operation "${operation}"`, { itemIndex });
}
