import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties, IWebhookDescription } from 'n8n-workflow';
import { NodeOperationError, SEND_AND_WAIT_OPERATION, WAIT_INDEFINITELY } from 'n8n-workflow';

import { mailroomRequest } from '../../shared/transport';
import { addressLocator, emailParameter } from '../../shared/address-locator';
import { beforeVersion1_2, fromVersion1_2 } from '../versions';
import { approvalEmail, formEmail, replyEmail, type Button } from './send-and-wait-pages';

/**
 * Email → Send and Wait for Response, with the parameters of n8n's own Send and Wait operations (Gmail, Send Email, ...):
 * the email carries Approve/Disapprove links or a link to a form, both opening the execution's resume URL, or (`reply`,
 * which only Mailroom has) the workflow goes on when the recipient answers the email: the email is sent with a reply
 * hook, and Mailroom POSTs the answer to the resume URL (signed, retried while n8n is down). Nothing polls.
 */

const shown = { resource: ['email'], operation: [SEND_AND_WAIT_OPERATION] };

/** The resume webhooks, as n8n's Send and Wait nodes declare them: GET for links and the form page, POST for answers. */
export const sendAndWaitWebhooks: IWebhookDescription[] = (['GET', 'POST'] as const).map((httpMethod) => ({
	name: 'default',
	httpMethod,
	responseMode: 'onReceived',
	responseData: '',
	path: '={{ $nodeId }}',
	restartWebhook: true,
	isFullPath: true,
}));

const buttonStyle = (displayName: string, name: string, fallback: string, approvalTypes: string[]): INodeProperties => ({
	displayName,
	name,
	type: 'options',
	default: fallback,
	description: 'How the button looks: filled in the accent color, or outlined',
	options: [
		{ name: 'Primary', value: 'primary', description: 'Filled in the accent color' },
		{ name: 'Secondary', value: 'secondary', description: 'White, outlined in grey' },
	],
	displayOptions: { show: { approvalType: approvalTypes } },
});

const limitWaitTime: INodeProperties = {
	displayName: 'Limit Wait Time',
	name: 'limitWaitTime',
	type: 'fixedCollection',
	description: 'Whether to limit the time this node waits for a response; when it runs out, the workflow goes on with the input items',
	default: { values: { limitType: 'afterTimeInterval', resumeAmount: 45, resumeUnit: 'minutes' } },
	options: [
		{
			displayName: 'Values',
			name: 'values',
			values: [
				{
					displayName: 'Limit Type',
					name: 'limitType',
					type: 'options',
					default: 'afterTimeInterval',
					description: 'Sets the condition for the execution to resume. Can be a specified date or after some time.',
					options: [
						{ name: 'After Time Interval', description: 'Waits for a certain amount of time', value: 'afterTimeInterval' },
						{ name: 'At Specified Time', description: 'Waits until the set date and time to continue', value: 'atSpecifiedTime' },
					],
				},
				{
					displayName: 'Amount',
					name: 'resumeAmount',
					type: 'number',
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
					typeOptions: { minValue: 0, numberPrecision: 2 },
					default: 1,
					description: 'The time to wait',
				},
				{
					displayName: 'Unit',
					name: 'resumeUnit',
					type: 'options',
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
					options: [
						{ name: 'Minutes', value: 'minutes', description: 'Amount is in minutes' },
						{ name: 'Hours', value: 'hours', description: 'Amount is in hours' },
						{ name: 'Days', value: 'days', description: 'Amount is in days' },
					],
					default: 'hours',
					description: 'Unit of the interval value',
				},
				{
					displayName: 'Max Date and Time',
					name: 'maxDateAndTime',
					type: 'dateTime',
					displayOptions: { show: { limitType: ['atSpecifiedTime'] } },
					default: '',
					description: 'Continue execution after the specified date and time',
				},
			],
		},
	],
};

const forFreeText = { show: { '/responseType': ['freeText'] } };

export const sendAndWaitDescription: INodeProperties[] = [
	{
		displayName: 'From',
		name: 'from',
		type: 'string',
		placeholder: 'me@example.com',
		required: true,
		default: '',
		displayOptions: beforeVersion1_2(shown),
		description: 'Sender address; it must be an address your account owns. A Reply response comes back to it.',
	},
	addressLocator({
		displayName: 'From',
		name: 'from',
		placeholder: 'me@example.com',
		displayOptions: fromVersion1_2(shown),
		description: 'Sender address; it must be an address your account owns. A Reply response comes back to it.',
	}),
	{
		displayName: 'To',
		name: 'sendTo',
		type: 'string',
		placeholder: 'e.g. info@example.com',
		required: true,
		default: '',
		displayOptions: { show: shown },
		description: 'The one address that is asked',
	},
	{
		displayName: 'Subject',
		name: 'subject',
		type: 'string',
		placeholder: 'e.g. Approval required',
		required: true,
		default: '',
		displayOptions: { show: shown },
		description: 'Subject line of the email; a reply keeps it after "Re: "',
	},
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		typeOptions: { rows: 4 },
		required: true,
		default: '',
		displayOptions: { show: shown },
		description: 'What the recipient is asked; the buttons or the form link follow it',
	},
	{
		displayName: 'Response Type',
		name: 'responseType',
		type: 'options',
		default: 'approval',
		description: 'How the recipient responds, and so what the output is when the workflow goes on',
		displayOptions: { show: shown },
		options: [
			{ name: 'Approval', value: 'approval', description: 'User can approve/disapprove from within the message' },
			{ name: 'Free Text', value: 'freeText', description: 'User can submit a response via a form' },
			{
				name: 'Reply',
				value: 'reply',
				description: 'User answers the email; the reply (without the quoted thread in strippedText) is the output',
			},
		],
	},
	{
		displayName: 'Approval Options',
		name: 'approvalOptions',
		type: 'fixedCollection',
		placeholder: 'Add option',
		default: {},
		description: 'The buttons of the email',
		displayOptions: { show: { ...shown, responseType: ['approval'] } },
		options: [
			{
				displayName: 'Values',
				name: 'values',
				values: [
					{
						displayName: 'Type of Approval',
						name: 'approvalType',
						type: 'options',
						default: 'single',
						description: 'Whether the email has a Disapprove button beside Approve',
						options: [
							{ name: 'Approve Only', value: 'single', description: 'One button: approved is always true' },
							{ name: 'Approve and Disapprove', value: 'double', description: 'Two buttons: approved is true or false' },
						],
					},
					{
						displayName: 'Approve Button Label',
						name: 'approveLabel',
						type: 'string',
						default: 'Approve',
						description: 'Text of the Approve button',
						displayOptions: { show: { approvalType: ['single', 'double'] } },
					},
					buttonStyle('Approve Button Style', 'buttonApprovalStyle', 'primary', ['single', 'double']),
					{
						displayName: 'Disapprove Button Label',
						name: 'disapproveLabel',
						type: 'string',
						default: 'Decline',
						description: 'Text of the Disapprove button',
						displayOptions: { show: { approvalType: ['double'] } },
					},
					buttonStyle('Disapprove Button Style', 'buttonDisapprovalStyle', 'secondary', ['double']),
				],
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		description: 'How long to wait, and the words of the free-text form',
		displayOptions: { show: shown },
		options: [
			limitWaitTime,
			{
				displayName: 'Message Button Label',
				name: 'messageButtonLabel',
				type: 'string',
				default: 'Respond',
				description: 'Text of the button in the email that opens the form',
				displayOptions: forFreeText,
			},
			{
				displayName: 'Response Form Title',
				name: 'responseFormTitle',
				description: 'Title of the form that the user can access to provide their response',
				type: 'string',
				default: '',
				displayOptions: forFreeText,
			},
			{
				displayName: 'Response Form Description',
				name: 'responseFormDescription',
				description: 'Description of the form that the user can access to provide their response',
				type: 'string',
				default: '',
				displayOptions: forFreeText,
			},
			{
				displayName: 'Response Form Button Label',
				name: 'responseFormButtonLabel',
				type: 'string',
				default: 'Submit',
				description: 'Text of the button that sends the form',
				displayOptions: forFreeText,
			},
		],
	},
];

export type ResponseType = 'approval' | 'freeText' | 'reply';

export interface SendAndWaitOptions {
	limitWaitTime?: { values?: { limitType?: string; resumeAmount?: number; resumeUnit?: string; maxDateAndTime?: string } };
	messageButtonLabel?: string;
	responseFormTitle?: string;
	responseFormDescription?: string;
	responseFormButtonLabel?: string;
}

interface ApprovalOptions {
	approvalType?: 'single' | 'double';
	approveLabel?: string;
	buttonApprovalStyle?: string;
	disapproveLabel?: string;
	buttonDisapprovalStyle?: string;
}

const UNIT_MS: Record<string, number> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

/** When the wait ends without a response: Limit Wait Time's, else never (as n8n's nodes). */
function waitTillOf(this: IExecuteFunctions, options: SendAndWaitOptions): Date {
	const limit = options.limitWaitTime?.values;
	if (!limit) return WAIT_INDEFINITELY;
	const waitTill =
		limit.limitType === 'atSpecifiedTime'
			? new Date(limit.maxDateAndTime ?? '')
			: new Date(Date.now() + (limit.resumeAmount ?? 1) * (UNIT_MS[limit.resumeUnit ?? 'hours'] ?? UNIT_MS.hours));
	if (isNaN(waitTill.getTime())) {
		throw new NodeOperationError(this.getNode(), 'Could not configure Limit Wait Time', { description: 'Invalid date format' });
	}
	return waitTill;
}

/**
 * A link to the node's resume webhook (the execution's resume URL and the node's id), with `parameters`, signed by n8n as
 * n8n's own Send and Wait nodes sign theirs: n8n's waiting webhook refuses a link whose signature does not match (so an
 * Approve link cannot be turned into another answer). n8n versions that enforce signatures only when asked are asked.
 */
function resumeLink(this: IExecuteFunctions, parameters: Record<string, string> = {}): string {
	(this as { setSignatureValidationRequired?: () => void }).setSignatureValidationRequired?.();
	return this.getSignedResumeUrl(parameters);
}

function approvalButtons(this: IExecuteFunctions): Button[] {
	const options = this.getNodeParameter('approvalOptions.values', 0, {}) as ApprovalOptions;
	const approve = {
		label: options.approveLabel || 'Approve',
		href: resumeLink.call(this, { approved: 'true' }),
		style: options.buttonApprovalStyle || 'primary',
	};
	if (options.approvalType !== 'double') return [approve];
	const disapprove = {
		label: options.disapproveLabel || 'Disapprove',
		href: resumeLink.call(this, { approved: 'false' }),
		style: options.buttonDisapprovalStyle || 'secondary',
	};
	return [disapprove, approve];
}

/** A reply hook lives at most this long on the server: a wait without a limit is kept that long. */
const LONGEST_REPLY_HOOK_MS = 365 * 86_400_000;

/**
 * Sends the email once (for the first item, as n8n's Send and Wait does), then puts the execution to wait. The output,
 * when the response comes, is the webhook's (see sendAndWaitWebhook); when the wait runs out, the input items.
 */
export async function executeSendAndWait(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const to = (this.getNodeParameter('sendTo', 0) as string).trim();
	if ((to.match(/@/g) ?? []).length !== 1) {
		throw new NodeOperationError(this.getNode(), 'Invalid email address', {
			description: `The email address '${to}' in the 'To' field isn't valid or contains multiple addresses. Please provide only a single email address.`,
			itemIndex: 0,
		});
	}
	const responseType = this.getNodeParameter('responseType', 0, 'approval') as ResponseType;
	const options = this.getNodeParameter('options', 0, {}) as SendAndWaitOptions;
	const waitTill = waitTillOf.call(this, options);
	const url = resumeLink.call(this);
	const message = this.getNodeParameter('message', 0, '') as string;
	const content =
		responseType === 'approval'
			? approvalEmail(message, approvalButtons.call(this))
			: responseType === 'freeText'
				? formEmail(message, { label: options.messageButtonLabel || 'Respond', href: url, style: 'primary' })
				: replyEmail(message);
	const body: IDataObject = {
		from: emailParameter(this, 'from', 0),
		to,
		subject: this.getNodeParameter('subject', 0, ''),
		...content,
	};
	if (responseType === 'reply') {
		const expiresAt = new Date(Math.min(waitTill.getTime(), Date.now() + LONGEST_REPLY_HOOK_MS));
		body.replyHook = { url, expiresAt: expiresAt.toISOString() };
	}
	const send = () => mailroomRequest.call(this, 'POST', '/api/outgoing-messages', { body, itemIndex: 0 });
	if (!this.continueOnFail()) await send();
	else {
		try {
			await send();
		} catch (error) {
			// Nothing was sent, so nothing is waited for (as n8n's own Send and Wait nodes do).
			const { message, httpCode } = error as { message: string; httpCode?: string | null };
			return [[{ json: { error: message, ...(httpCode ? { httpCode } : {}) }, pairedItem: { item: 0 } }]];
		}
	}
	await this.putExecutionToWait(waitTill);
	return [this.getInputData()];
}
