import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { addressPath, mailroomRequest } from '../../shared/transport';
import { fromVersion1_1, inVersion1, isVersion1 } from '../versions';

const waitFor = { resource: ['message'], operation: ['waitFor'] };

/** The server waits at most this long (GET …/wait-for-message). */
export const MAX_WAIT_SECONDS = 300;

/** Beyond Timeout, how long the answer (the 408 included) may take to come before the request gives up. */
const ANSWER_MARGIN_MS = 30_000;

const filterOptions: INodeProperties[] = [
	{
		displayName: 'From Contains',
		name: 'senderContains',
		type: 'string',
		default: '',
		placeholder: 'noreply@example.com',
		description: "Text the sender's address or name must contain (case-insensitive)",
	},
	{
		displayName: 'Subject Contains',
		name: 'subjectContains',
		type: 'string',
		default: '',
		placeholder: 'Your verification code',
		description: 'Text the subject must contain (case-insensitive)',
	},
	{
		displayName: 'Text Contains',
		name: 'textContains',
		type: 'string',
		default: '',
		placeholder: 'verify',
		description: 'Text the plain text body must contain (case-insensitive)',
	},
];

const filters = (options: INodeProperties[]): Omit<INodeProperties, 'displayOptions'> => ({
	displayName: 'Filters',
	name: 'filters',
	type: 'collection',
	placeholder: 'Add Filter',
	default: {},
	description: 'Conditions the message must meet, all of them; without any, the first message to arrive matches',
	options,
});

export const waitForProperties: INodeProperties[] = [
	{
		displayName: 'Only Mail Received After This Node Started',
		name: 'receivedAfterStart',
		type: 'boolean',
		default: true,
		displayOptions: fromVersion1_1(waitFor),
		description:
			'Whether to wait for mail received after this node started. Off: the oldest matching message already in the inbox answers at once, and only without one does the node wait.',
	},
	{
		displayName: 'Timeout (Seconds)',
		name: 'timeout',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_WAIT_SECONDS },
		default: 60,
		displayOptions: { show: waitFor },
		description: `How long to wait for a matching message before failing (at most ${MAX_WAIT_SECONDS})`,
	},
	// Version 1 had the switch among the filters, where it was off unless added: its workflows keep that.
	{
		...filters([
			{
				displayName: 'Received After Node Started',
				name: 'receivedAfterStart',
				type: 'boolean',
				default: true,
				description: 'Whether to ignore messages received before this node started running',
			},
			...filterOptions,
		]),
		displayOptions: inVersion1(waitFor),
	},
	{ ...filters(filterOptions), displayOptions: fromVersion1_1(waitFor) },
];

interface WaitFilters {
	receivedAfterStart?: boolean;
	senderContains?: string;
	subjectContains?: string;
	textContains?: string;
}

/**
 * Message → Wait For: one request that the server answers with the oldest matching message received at or after
 * `since`, as soon as it is stored, or with a 408 naming the filters after the timeout. Stopping the execution aborts
 * the request, which frees the server's waiter.
 */
export async function waitForMessage(this: IExecuteFunctions, email: string, itemIndex: number, startedAt: Date): Promise<IDataObject> {
	const timeout = (this.getNodeParameter('timeout', itemIndex) as number) * 1000;
	const { receivedAfterStart, senderContains, subjectContains, textContains } = this.getNodeParameter(
		'filters',
		itemIndex,
		{},
	) as WaitFilters;
	const onlyNew = isVersion1(this) ? receivedAfterStart === true : (this.getNodeParameter('receivedAfterStart', itemIndex) as boolean);
	const qs: IDataObject = { since: (onlyNew ? startedAt : new Date(0)).toISOString(), timeout };
	for (const [name, value] of Object.entries({ from: senderContains, subject: subjectContains, text: textContains })) {
		if (value?.trim()) qs[name] = value.trim();
	}
	return (await mailroomRequest.call(this, 'GET', `/api/addresses/${addressPath(email)}/wait-for-message`, {
		qs,
		timeout: timeout + ANSWER_MARGIN_MS,
		itemIndex,
	})) as IDataObject;
}
