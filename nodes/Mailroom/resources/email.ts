import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { mailroomRequest } from '../../shared/transport';

const show = { show: { resource: ['email'], operation: ['send'] } };

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
					'Send an email from one of your addresses (one outgoing message credit per recipient); the output has its status: delivered, queued (being retried) or failed, also per recipient',
				action: 'Send an email',
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
		displayOptions: show,
		description: 'Sender address; it must be an address your account owns',
	},
	{
		displayName: 'To',
		name: 'to',
		type: 'string',
		placeholder: 'alice@example.com, Bob <bob@example.com>',
		required: true,
		default: '',
		displayOptions: show,
		description: 'Recipient address, or several (at most 50) separated by commas; "Name <address>" works too',
	},
	{
		displayName: 'Subject',
		name: 'subject',
		type: 'string',
		default: '',
		displayOptions: show,
		description: 'Subject line; mail without one is often classed as spam',
	},
	{
		displayName: 'Text',
		name: 'text',
		type: 'string',
		typeOptions: { rows: 5 },
		default: '',
		displayOptions: show,
		description: 'Plain text body of the email; Text or HTML (under Options) is required',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: show,
		description: 'Optional parts of the email',
		options: [
			{
				displayName: 'HTML',
				name: 'html',
				type: 'string',
				typeOptions: { rows: 5 },
				default: '',
				description: 'HTML body, sent alongside the plain text for mail clients that show HTML',
			},
		],
	},
];

export async function executeEmail(this: IExecuteFunctions, operation: string, itemIndex: number): Promise<IDataObject | IDataObject[]> {
	if (operation !== 'send') {
		throw new NodeOperationError(this.getNode(), `Unknown email operation "${operation}"`, { itemIndex });
	}
	const subject = this.getNodeParameter('subject', itemIndex) as string;
	const text = this.getNodeParameter('text', itemIndex) as string;
	const { html } = this.getNodeParameter('options', itemIndex) as { html?: string };
	const body: IDataObject = {
		// The server splits the list itself, so a quoted name with a comma ("Doe, Jane" <jane@example.com>) stays whole.
		to: (this.getNodeParameter('to', itemIndex) as string).trim(),
		from: (this.getNodeParameter('from', itemIndex) as string).trim(),
		...(subject && { subject }),
		...(text && { text }),
		...(html && { html }),
	};
	return (await mailroomRequest.call(this, 'POST', '/api/outgoing-messages', { body, itemIndex })) as IDataObject;
}
