import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { mailroomRequest } from '../transport';

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
				description: 'Send an email from one of your addresses (uses outgoing message credits)',
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
		placeholder: 'alice@example.com, bob@example.com',
		required: true,
		default: '',
		displayOptions: show,
		description: 'Recipient address, or several separated by commas',
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
		required: true,
		default: '',
		displayOptions: show,
		description: 'Plain text body of the email',
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

export async function executeEmail(
	this: IExecuteFunctions,
	operation: string,
	itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
	if (operation !== 'send') {
		throw new NodeOperationError(this.getNode(), `Unknown email operation "${operation}"`, { itemIndex });
	}
	const recipients = (this.getNodeParameter('to', itemIndex) as string)
		.split(',')
		.map((address) => address.trim())
		.filter(Boolean);
	const subject = this.getNodeParameter('subject', itemIndex) as string;
	const { html } = this.getNodeParameter('options', itemIndex) as { html?: string };
	const body: IDataObject = {
		to: recipients.length === 1 ? recipients[0] : recipients,
		from: (this.getNodeParameter('from', itemIndex) as string).trim(),
		...(subject && { subject }),
		text: this.getNodeParameter('text', itemIndex) as string,
		...(html && { html }),
	};
	return (await mailroomRequest.call(this, 'POST', '/api/outgoing-messages', { body, itemIndex })) as IDataObject;
}
