import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { mailroomRequest } from '../../shared/transport';
import { addressLocator, emailParameter } from '../../shared/address-locator';
import { MAX_PAGE, returnAllAndLimit, wantedCount } from '../listing';
import { messagePath } from '../message-paths';
import { beforeVersion1_2, fromVersion1_2 } from '../versions';

const threadOperation = { resource: ['message'], operation: ['getThread'] };
const ofMessageShow = { ...threadOperation, threadOf: ['message'] };
const ofMessage = { show: ofMessageShow };

export const messageThreadProperties: INodeProperties[] = [
	{
		displayName: 'Thread Of',
		name: 'threadOf',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'A Message', value: 'message', description: 'The thread of a message, by its inbox and ID' },
			{ name: 'A Thread ID', value: 'threadId', description: 'A thread by its ID: the threadId of a message or of a sent email' },
		],
		default: 'message',
		displayOptions: { show: threadOperation },
		description: 'How the thread is named',
	},
	{
		displayName: 'Email Address',
		name: 'email',
		type: 'string',
		placeholder: 'name@example.com',
		required: true,
		default: '',
		displayOptions: beforeVersion1_2(ofMessageShow),
		description: 'The address whose inbox holds the message',
	},
	addressLocator({
		displayName: 'Email Address',
		name: 'email',
		placeholder: 'name@example.com',
		displayOptions: fromVersion1_2(ofMessageShow),
		description: 'The address whose inbox holds the message',
	}),
	{
		displayName: 'Message ID',
		name: 'messageId',
		type: 'string',
		required: true,
		default: '',
		displayOptions: ofMessage,
		description: 'The _id of the message, as Get Many, Search or Wait For output it',
	},
	{
		displayName: 'Thread ID',
		name: 'threadId',
		type: 'string',
		required: true,
		default: '',
		displayOptions: { show: { ...threadOperation, threadOf: ['threadId'] } },
		description: 'The threadId of a message, or of a sent email',
	},
	...returnAllAndLimit('message', ['getThread']),
];

/** A page of GET /api/threads/:threadId. */
interface ThreadPage {
	threadId: string;
	messages: IDataObject[];
	next: string | null;
}

/**
 * Message → Get Thread: the received and sent messages of a conversation, oldest first, one item each with its `type`
 * (`received` or `sent`) and its record; the thread named by its ID, or read from a message's record (its `threadId`).
 */
export async function getThread(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const threadId =
		this.getNodeParameter('threadOf', itemIndex) === 'threadId'
			? (this.getNodeParameter('threadId', itemIndex) as string).trim()
			: (
					(await mailroomRequest.call(
						this,
						'GET',
						messagePath(emailParameter(this, 'email', itemIndex), this.getNodeParameter('messageId', itemIndex) as string),
						{ itemIndex },
					)) as { threadId: string }
				).threadId;
	const limit = wantedCount.call(this, itemIndex);
	const messages: IDataObject[] = [];
	let after: string | null = null;
	do {
		const page = (await mailroomRequest.call(this, 'GET', `/api/threads/${encodeURIComponent(threadId)}`, {
			qs: { limit: Math.min(limit - messages.length, MAX_PAGE), ...(after && { after }) },
			itemIndex,
		})) as ThreadPage;
		messages.push(...page.messages);
		after = page.next;
	} while (after && messages.length < limit);
	return messages.slice(0, limit);
}
