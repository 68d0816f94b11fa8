import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { getManyMessages, MAX_PAGE, messagePages, returnAllAndLimit, type ListedMessage } from '../listing';
import { addressPath, mailroomRequest } from '../../shared/transport';
import { executeMessageAction, messageActionOptions, messageActionProperties, ONE_MESSAGE_ACTIONS } from './message-actions';

const inboxPath = (email: string) => `/api/addresses/${addressPath(email)}/messages`;

const show = (operation: string[]) => ({ show: { resource: ['message'], operation } });

export const messageDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		description: 'What to do with received messages',
		displayOptions: { show: { resource: ['message'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List the messages of an inbox, newest first',
				action: 'Get many messages',
			},
			{
				name: 'Get Text',
				value: 'getText',
				description: 'Get the plain text body of a message',
				action: 'Get the text of a message',
			},
			{
				name: 'Wait For',
				value: 'waitFor',
				description: 'Wait until a matching message arrives in an inbox, or fail after a timeout',
				action: 'Wait for a message',
			},
			...messageActionOptions,
		].sort((a, b) => a.name.localeCompare(b.name)),
		default: 'getAll',
	},
	{
		displayName: 'Email Address',
		name: 'email',
		type: 'string',
		placeholder: 'name@example.com',
		required: true,
		default: '',
		displayOptions: show(['getAll', 'getText', 'waitFor', ...messageActionOptions.map((option) => option.value as string)]),
		description: 'The address whose inbox to read',
	},
	{
		displayName: 'Message ID',
		name: 'messageId',
		type: 'string',
		required: true,
		default: '',
		displayOptions: show(['getText', ...ONE_MESSAGE_ACTIONS]),
		description: 'The _id of the message, as returned by Get Many or Wait For',
	},
	...returnAllAndLimit('message', ['getAll'], MAX_PAGE),
	{
		displayName: 'Timeout (Seconds)',
		name: 'timeout',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 60,
		displayOptions: show(['waitFor']),
		description: 'How long to wait for a matching message before failing',
	},
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: show(['waitFor']),
		description: 'Conditions the message must meet; without any, the newest message in the inbox matches',
		options: [
			{
				displayName: 'Received After Node Started',
				name: 'receivedAfterStart',
				type: 'boolean',
				default: true,
				description: 'Whether to ignore messages received before this node started running',
			},
			{
				displayName: 'Sender Contains',
				name: 'senderContains',
				type: 'string',
				default: '',
				placeholder: 'noreply@example.com',
				description: 'Text the sender address or name must contain (case-insensitive)',
			},
			{
				displayName: 'Subject Contains',
				name: 'subjectContains',
				type: 'string',
				default: '',
				placeholder: 'Your verification code',
				description: 'Text the subject must contain (case-insensitive)',
			},
		],
	},
	{
		displayName: 'Poll Interval (Seconds)',
		name: 'pollInterval',
		type: 'number',
		typeOptions: { minValue: 0.1 },
		default: 2,
		displayOptions: show(['waitFor']),
		description: 'How often to check the inbox while waiting',
	},
	...messageActionProperties,
];

interface WaitFilters {
	receivedAfterStart?: boolean;
	senderContains?: string;
	subjectContains?: string;
}

const contains = (value: string | undefined, part: string) => (value ?? '').toLowerCase().includes(part.toLowerCase());

/** A cancelled execution is noticed within this long while waiting. */
const CANCEL_CHECK_MS = 250;

/**
 * Waits `ms`, or throws once the execution is cancelled. Built on `sleep`, which every n8n 2.x exports
 * (`sleepWithAbort` is gone from newer ones), in short steps so a cancellation is not waited out.
 */
async function pause(this: IExecuteFunctions, ms: number, itemIndex: number): Promise<void> {
	const signal = this.getExecutionCancelSignal();
	for (const until = Date.now() + ms; Date.now() < until && !signal?.aborted;) {
		await sleep(Math.min(CANCEL_CHECK_MS, until - Date.now()));
	}
	if (signal?.aborted) throw new NodeOperationError(this.getNode(), 'The execution was cancelled while waiting for mail', { itemIndex });
}

async function waitFor(this: IExecuteFunctions, email: string, itemIndex: number, startedAt: Date) {
	const timeout = (this.getNodeParameter('timeout', itemIndex) as number) * 1000;
	const interval = (this.getNodeParameter('pollInterval', itemIndex) as number) * 1000;
	const filters = this.getNodeParameter('filters', itemIndex) as WaitFilters;
	const after = filters.receivedAfterStart ? startedAt.getTime() : -Infinity;
	const matches = (message: ListedMessage) =>
		(!filters.senderContains ||
			(message.from ?? []).some(
				(sender) => contains(sender.address, filters.senderContains!) || contains(sender.name, filters.senderContains!),
			)) &&
		(!filters.subjectContains || contains(message.subject, filters.subjectContains));

	const deadline = Date.now() + timeout;
	for (;;) {
		pages: for await (const page of messagePages.call(this, inboxPath(email), 100, itemIndex)) {
			for (const message of page) {
				// Newest first: once older than the start, every later record is too.
				if (Date.parse(message.received) < after) break pages;
				if (matches(message)) return message;
			}
		}
		const left = deadline - Date.now();
		if (left <= 0) break;
		await pause.call(this, Math.min(interval, left), itemIndex);
	}
	const wanted = [
		filters.senderContains && `from "${filters.senderContains}"`,
		filters.subjectContains && `subject "${filters.subjectContains}"`,
		filters.receivedAfterStart && `received after ${startedAt.toISOString()}`,
	].filter(Boolean);
	throw new NodeOperationError(
		this.getNode(),
		`No message${wanted.length ? ` (${wanted.join(', ')})` : ''} arrived at ${email} within ${timeout / 1000} s`,
		{ itemIndex, description: 'Raise Timeout (Seconds) or check the filters and the address.' },
	);
}

export async function executeMessage(
	this: IExecuteFunctions,
	operation: string,
	itemIndex: number,
	startedAt: Date,
): Promise<IDataObject | IDataObject[] | INodeExecutionData> {
	const email = this.getNodeParameter('email', itemIndex) as string;
	switch (operation) {
		case 'getAll':
			return await getManyMessages.call(this, inboxPath(email), itemIndex);
		case 'getText': {
			const messageId = this.getNodeParameter('messageId', itemIndex) as string;
			const text = (await mailroomRequest.call(this, 'GET', `/api/text/${addressPath(email)}/${encodeURIComponent(messageId.trim())}`, {
				text: true,
				itemIndex,
			})) as string;
			return { email, messageId, text };
		}
		case 'waitFor':
			return await waitFor.call(this, email, itemIndex, startedAt);
	}
	return await executeMessageAction.call(this, operation, email, itemIndex);
}
