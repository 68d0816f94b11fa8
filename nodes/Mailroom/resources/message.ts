import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { attachmentDownloadOptions, attachmentPrefix, type AttachmentDownload } from '../../shared/attachments';
import { mailroomRequest } from '../../shared/transport';
import { addressLocator, emailParameter } from '../../shared/address-locator';
import { getManyMessages, ItemList, listSimplifyProperties, MAX_PAGE, returnAllAndLimit, wantedCount } from '../listing';
import { filteredMessages, getManyFilters, hasFilters, SEARCH_LIMIT, type GetManyFilters } from '../message-filters';
import { inboxPath } from '../message-paths';
import { listedMessageItems, simplifiedRecord, type ListedRecord } from '../simplified-list';
import { beforeVersion1_2, fromVersion1_2 } from '../versions';
import {
	executeMessageAction,
	messageActionOptions,
	messageActionProperties,
	ONE_MESSAGE_ACTIONS,
	narrowReadOptions,
} from './message-actions';
import { getMessage, messageGetProperties } from './message-get';
import { messageReplyProperties, replyToMessage } from './message-reply';
import { getThread, messageThreadProperties } from './message-thread';
import { waitForMessage, waitForProperties } from './wait-for';

const show = (operation: string[]) => ({ resource: ['message'], operation });

/** The operations on the inbox of one address. */
const INBOX_OPERATIONS = ['getAll', 'get', 'reply', 'waitFor', 'deleteAll', ...ONE_MESSAGE_ACTIONS];

const operations: INodePropertyOptions[] = [
	{
		name: 'Get',
		value: 'get',
		description:
			'Get a message with its text and HTML bodies, Cc and attachment list as the Mailroom Trigger gets them, and its attachments as binary data if asked',
		action: 'Get a message',
	},
	{ name: 'Get Many', value: 'getAll', description: 'List the messages of an inbox, newest first', action: 'Get many messages' },
	{
		name: 'Get Thread',
		value: 'getThread',
		description:
			'Get the received and sent messages of a conversation (messages that answer one another), oldest first, by thread ID or from a message',
		action: 'Get the thread of a message',
	},
	{
		name: 'Reply',
		value: 'reply',
		description:
			'Reply to a message in its thread, to its sender (its Reply-To address when it has one), from the address that received it (one credit per recipient)',
		action: 'Reply to a message',
	},
	{
		name: 'Search',
		value: 'search',
		description: 'Find messages of all your addresses and domains by words of their sender, recipients, subject or body, and operators',
		action: 'Search messages',
	},
	{
		name: 'Wait For',
		value: 'waitFor',
		description: 'Wait until a matching message arrives in an inbox, or fail after a timeout',
		action: 'Wait for a message',
	},
	...messageActionOptions,
];

const operationProperty = (options: INodePropertyOptions[]): INodeProperties => ({
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	description: 'What to do with received messages',
	options: [...options].sort((a, b) => a.name.localeCompare(b.name)),
	default: 'getAll',
});

export const messageDescription: INodeProperties[] = [
	{ ...operationProperty([...operations, ...narrowReadOptions]), displayOptions: { show: { resource: ['message'] } } },
	{
		displayName: 'Email Address',
		name: 'email',
		type: 'string',
		placeholder: 'name@example.com',
		required: true,
		default: '',
		displayOptions: beforeVersion1_2(show(INBOX_OPERATIONS)),
		description: 'The address whose inbox to read',
	},
	addressLocator({
		displayName: 'Email Address',
		name: 'email',
		placeholder: 'name@example.com',
		displayOptions: fromVersion1_2(show(INBOX_OPERATIONS)),
		description: 'The address whose inbox to read: one of your account, or any address typed by hand',
	}),
	{
		displayName: 'Message ID',
		name: 'messageId',
		type: 'string',
		required: true,
		default: '',
		displayOptions: { show: show(['get', 'reply', ...ONE_MESSAGE_ACTIONS]) },
		description: 'The _id of the message, as Get Many, Search or Wait For output it',
	},
	{
		displayName: 'Query',
		name: 'query',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'invoice from:billing after:2026-11-01 -is:read',
		displayOptions: { show: show(['search']) },
		description:
			'Words and "quoted phrases" found in the sender, recipients, subject or body (case-insensitive), all to match, and operators: from:, to:, subject:, label:, after:/before: (YYYY-MM-DD), has:attachment, is:read, is:unread, is:starred; - before any of them excludes it',
	},
	...returnAllAndLimit('message', ['getAll'], MAX_PAGE),
	...returnAllAndLimit('message', ['search'], SEARCH_LIMIT),
	...listSimplifyProperties('message', ['getAll', 'search']),
	getManyFilters,
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: { show: show(['getAll', 'search']) },
		description: "The messages' attachments as binary data",
		options: attachmentDownloadOptions,
	},
	...messageGetProperties,
	...messageReplyProperties,
	...messageThreadProperties,
	...waitForProperties,
	...listSimplifyProperties('message', ['waitFor']),
	...messageActionProperties,
];

/** Message → Search: the newest matching messages of the account, at most SEARCH_LIMIT. */
async function searchMessages(this: IExecuteFunctions, itemIndex: number): Promise<ListedRecord[]> {
	const query = (this.getNodeParameter('query', itemIndex) as string).trim();
	const { messages } = (await mailroomRequest.call(this, 'GET', '/api/inbox-search', { qs: { query }, itemIndex })) as {
		messages: ListedRecord[];
	};
	return messages.slice(0, wantedCount.call(this, itemIndex));
}

/** Message → Get Many: the inbox's newest messages, or those meeting the filters. */
async function inboxMessages(this: IExecuteFunctions, email: string, itemIndex: number): Promise<ListedRecord[]> {
	const filters = this.getNodeParameter('filters', itemIndex, {}) as GetManyFilters;
	if (hasFilters(filters)) return await filteredMessages.call(this, email, filters, wantedCount.call(this, itemIndex), itemIndex);
	return (await getManyMessages.call(this, inboxPath(email), itemIndex)) as ListedRecord[];
}

/** The items of listed messages, as Simplify and the Download Attachments option ask. */
async function messageItems(this: IExecuteFunctions, records: ListedRecord[], itemIndex: number) {
	const options = this.getNodeParameter('options', itemIndex, {}) as AttachmentDownload;
	const simplify = this.getNodeParameter('simplify', itemIndex) as boolean;
	const prefix = options.downloadAttachments ? attachmentPrefix(options) : undefined;
	return new ItemList(await listedMessageItems.call(this, records, { simplify, attachmentPrefix: prefix }, itemIndex));
}

export async function executeMessage(
	this: IExecuteFunctions,
	operation: string,
	itemIndex: number,
	startedAt: Date,
): Promise<IDataObject | IDataObject[] | INodeExecutionData | ItemList> {
	if (operation === 'search') return await messageItems.call(this, await searchMessages.call(this, itemIndex), itemIndex);
	if (operation === 'getThread') return await getThread.call(this, itemIndex);
	const email = emailParameter(this, 'email', itemIndex);
	const messageId = () => this.getNodeParameter('messageId', itemIndex) as string;
	switch (operation) {
		case 'getAll':
			return await messageItems.call(this, await inboxMessages.call(this, email, itemIndex), itemIndex);
		case 'get':
			return await getMessage.call(this, email, messageId(), itemIndex);
		case 'reply':
			return await replyToMessage.call(this, email, messageId(), itemIndex);
		case 'waitFor': {
			const message = (await waitForMessage.call(this, email, itemIndex, startedAt)) as ListedRecord;
			return this.getNodeParameter('simplify', itemIndex) ? await simplifiedRecord.call(this, message, itemIndex) : message;
		}
	}
	return await executeMessageAction.call(this, operation, email, itemIndex);
}
