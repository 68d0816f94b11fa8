import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { addressPath, mailroomRequest } from '../transport';

export const addressDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		description: 'What to do with the address',
		displayOptions: { show: { resource: ['address'] } },
		options: [
			{
				name: 'Release',
				value: 'release',
				description: 'Give up a private address your account owns',
				action: 'Release an address',
			},
			{
				name: 'Reserve',
				value: 'reserve',
				description: 'Make an address private to your account',
				action: 'Reserve an address',
			},
			{
				name: 'Set Webhook Forwarding',
				value: 'setWebhook',
				description: 'Forward mail arriving at an address to a webhook URL, or stop forwarding',
				action: 'Set webhook forwarding of an address',
			},
		],
		default: 'reserve',
	},
	{
		displayName: 'Email Address',
		name: 'email',
		type: 'string',
		placeholder: 'name@example.com',
		required: true,
		default: '',
		displayOptions: { show: { resource: ['address'] } },
		description: 'The address to reserve, release or configure',
	},
	{
		displayName: 'Webhook URL',
		name: 'webhookUrl',
		type: 'string',
		placeholder: 'https://example.com/incoming-mail',
		default: '',
		displayOptions: { show: { resource: ['address'], operation: ['setWebhook'] } },
		description: 'URL that receives each message as a JSON POST; leave empty to stop forwarding',
	},
];

export async function executeAddress(
	this: IExecuteFunctions,
	operation: string,
	itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
	const email = this.getNodeParameter('email', itemIndex) as string;
	const path = addressPath(email);
	switch (operation) {
		case 'reserve':
			return await mailroomRequest.call(this, 'POST', `/api/addresses/${path}`, { itemIndex });
		case 'release': {
			const released = await mailroomRequest.call(this, 'DELETE', `/api/addresses/${path}`, { itemIndex });
			// An empty answer (204) still means the address was released.
			return released && typeof released === 'object' ? released : { _id: email, released: true };
		}
		case 'setWebhook': {
			const webhook = (this.getNodeParameter('webhookUrl', itemIndex) as string).trim();
			return await mailroomRequest.call(this, 'PUT', `/api/private-address-forwarding/${path}`, {
				body: { webhook: webhook || null },
				itemIndex,
			});
		}
	}
	throw new NodeOperationError(this.getNode(), `Unknown address operation "${operation}"`, { itemIndex });
}
