import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import { composedFieldNames, composedFields, composeOptions, emailBody, emailBodyProperties, type ComposeOptions } from '../compose';
import { mailroomRequest } from '../../shared/transport';
import { addressLocator, emailParameter } from '../../shared/address-locator';
import { beforeVersion1_2, fromVersion1_1, fromVersion1_2, inVersion1, isVersion1 } from '../versions';
import { sendAndWaitDescription } from './send-and-wait';

const send = { resource: ['email'], operation: ['send'] };

export const emailDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		description: 'What to do with outgoing mail',
		displayOptions: { show: { resource: ['email'] } },
		options: [
			{
				name: 'Send',
				value: 'send',
				description:
					'Send an email from one of your addresses (one outgoing message credit per recipient: To, CC and BCC); the output has its status: delivered, queued (being retried) or failed, also per recipient',
				action: 'Send an email',
			},
			{
				name: 'Send and Wait for Response',
				value: SEND_AND_WAIT_OPERATION,
				description:
					'Send an email and pause the workflow until the recipient approves, writes an answer in a form, or simply replies to the email',
				action: 'Send message and wait for response',
			},
		],
		default: 'send',
	},
	{
		displayName: 'From',
		name: 'from',
		type: 'string',
		placeholder: 'me@example.com',
		required: true,
		default: '',
		displayOptions: beforeVersion1_2(send),
		description: 'Sender address; it must be an address your account owns (Sender Name under Options adds a name)',
	},
	addressLocator({
		displayName: 'From',
		name: 'from',
		placeholder: 'me@example.com',
		displayOptions: fromVersion1_2(send),
		description: 'Sender address; it must be an address your account owns (Sender Name under Options adds a name)',
	}),
	{
		displayName: 'To',
		name: 'to',
		type: 'string',
		placeholder: 'alice@example.com, Bob <bob@example.com>',
		required: true,
		default: '',
		displayOptions: { show: send },
		description: 'Recipient address, or several separated by commas; "Name <address>" works too',
	},
	{
		displayName: 'Subject',
		name: 'subject',
		type: 'string',
		default: '',
		displayOptions: { show: send },
		description: 'Subject line; mail without one is often classed as spam',
	},
	// Version 1: Text always shown, HTML among the options.
	{
		displayName: 'Text',
		name: 'text',
		type: 'string',
		typeOptions: { rows: 5 },
		default: '',
		displayOptions: inVersion1(send),
		description: 'Plain text body of the email; Text or HTML (under Options) is required',
	},
	...emailBodyProperties(fromVersion1_1(send)),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: inVersion1(send),
		description: 'Optional parts of the email',
		options: composeOptions([
			{
				displayName: 'HTML',
				name: 'html',
				type: 'string',
				typeOptions: { rows: 5 },
				default: '',
				description: 'HTML body, sent alongside the plain text for mail clients that show HTML',
			},
		]),
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: fromVersion1_1(send),
		description: 'Optional parts of the email',
		options: composeOptions(),
	},
	...sendAndWaitDescription,
];

/** Version 1's body: Text, and HTML from the options. */
function version1Body(this: IExecuteFunctions, itemIndex: number, html?: string): IDataObject {
	const text = this.getNodeParameter('text', itemIndex) as string;
	return { ...(text && { text }), ...(html && { html }) };
}

export async function executeEmail(this: IExecuteFunctions, operation: string, itemIndex: number): Promise<IDataObject | IDataObject[]> {
	if (operation !== 'send') {
		throw new NodeOperationError(this.getNode(), `Unknown email operation "${operation}"`, { itemIndex });
	}
	const subject = this.getNodeParameter('subject', itemIndex) as string;
	const options = this.getNodeParameter('options', itemIndex, {}) as ComposeOptions & { html?: string };
	const from = emailParameter(this, 'from', itemIndex);
	const content = isVersion1(this) ? version1Body.call(this, itemIndex, options.html) : emailBody.call(this, itemIndex);
	const body: IDataObject = {
		to: (this.getNodeParameter('to', itemIndex) as string).trim(),
		...(subject && { subject }),
		...content,
		...(await composedFields.call(this, itemIndex, from, options, content.html as string | undefined)),
	};
	const fieldNames = { ...composedFieldNames, to: 'To', subject: 'Subject' };
	return (await mailroomRequest.call(this, 'POST', '/api/outgoing-messages', { body, itemIndex, fieldNames })) as IDataObject;
}
