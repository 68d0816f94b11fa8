import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { returnAllAndLimit, wantedCount } from '../listing';
import { addressPath, mailroomRequest } from '../../shared/transport';

const show = (operation: string[]) => ({ show: { resource: ['address'], operation } });

/** The forwarding settings of an address, for Reserve and Update (the API's ForwardingUpdate body). */
const forwardingSettings: INodeProperties[] = [
	{
		displayName: 'Enable WebSocket',
		name: 'enablews',
		type: 'boolean',
		default: false,
		description: 'Whether to publish each message to WebSocket subscribers of the address',
	},
	{
		displayName: 'Forward To',
		name: 'forward',
		type: 'string',
		placeholder: 'me@example.org',
		default: '',
		description: 'Address to re-send each message to (uses outgoing credits); empty stops forwarding',
	},
	{
		displayName: 'Info',
		name: 'info',
		type: 'string',
		default: '',
		description: 'A free-text note about the address',
	},
	{
		displayName: 'Slack Includes Sender and Recipients',
		name: 'webhookSlackToFrom',
		type: 'boolean',
		default: false,
		description: 'Whether the Slack summary includes the From and To addresses',
	},
	{
		displayName: 'Slack Webhook URL',
		name: 'webhookSlack',
		type: 'string',
		placeholder: 'https://hooks.slack.com/services/...',
		default: '',
		description: 'Slack incoming-webhook URL that gets a short summary of each message; empty stops it',
	},
	{
		displayName: 'Webhook URL',
		name: 'webhook',
		type: 'string',
		placeholder: 'https://example.com/incoming-mail',
		default: '',
		description: 'URL that receives each message as a JSON POST; empty stops forwarding',
	},
];

/** The parameters behind the fields of the forwarding settings, for the API's errors. */
const settingNames = Object.fromEntries(forwardingSettings.map((setting) => [setting.name, setting.displayName]));

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
				name: 'Get',
				value: 'get',
				description: 'Get the forwarding settings of one of your private addresses',
				action: 'Get an address',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List the private addresses of your account',
				action: 'Get many addresses',
			},
			{
				name: 'Release',
				value: 'release',
				description:
					'Give up a private address your account owns; with Delete Messages on, its messages are deleted for good (no undo), except starred ones',
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
			{
				name: 'Update',
				value: 'update',
				description: 'Change the forwarding settings of one of your private addresses',
				action: 'Update an address',
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
		displayOptions: show(['get', 'release', 'reserve', 'setWebhook', 'update']),
		description: 'The address to reserve, release or configure',
	},
	{
		displayName: 'Webhook URL',
		name: 'webhookUrl',
		type: 'string',
		placeholder: 'https://example.com/incoming-mail',
		default: '',
		displayOptions: show(['setWebhook']),
		description: 'URL that receives each message as a JSON POST; leave empty to stop forwarding',
	},
	...returnAllAndLimit('address', ['getAll']),
	{
		displayName: 'Settings',
		name: 'settings',
		type: 'collection',
		placeholder: 'Add Setting',
		default: {},
		displayOptions: show(['reserve']),
		description: 'Forwarding to set up with the reservation (ignored if you already hold the address)',
		options: forwardingSettings,
	},
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: show(['update']),
		description: 'The settings to change; those not added keep their value',
		options: forwardingSettings,
	},
	{
		displayName: 'Delete Messages',
		name: 'deleteMessages',
		type: 'boolean',
		default: false,
		displayOptions: show(['release']),
		description: 'Whether to also delete the messages of the address, for good (starred ones are kept)',
	},
];

export async function executeAddress(this: IExecuteFunctions, operation: string, itemIndex: number): Promise<IDataObject | IDataObject[]> {
	if (operation === 'getAll') {
		const addresses = (await mailroomRequest.call(this, 'GET', '/api/addresses', { itemIndex })) as IDataObject[];
		return addresses.slice(0, wantedCount.call(this, itemIndex));
	}
	const email = this.getNodeParameter('email', itemIndex) as string;
	const path = `/api/addresses/${addressPath(email)}`;
	switch (operation) {
		case 'get':
			return (await mailroomRequest.call(this, 'GET', path, { itemIndex })) as IDataObject;
		case 'reserve': {
			const body = this.getNodeParameter('settings', itemIndex, {}) as IDataObject;
			return (await mailroomRequest.call(this, 'POST', path, { body, itemIndex, fieldNames: settingNames })) as IDataObject;
		}
		case 'update': {
			const body = this.getNodeParameter('updateFields', itemIndex, {});
			return (await mailroomRequest.call(this, 'PUT', path, { body, itemIndex, fieldNames: settingNames })) as IDataObject;
		}
		case 'release': {
			const deleteMessages = this.getNodeParameter('deleteMessages', itemIndex, false) as boolean;
			const released = await mailroomRequest.call(this, 'DELETE', path, {
				qs: deleteMessages ? { deleteAddressMessages: true } : undefined,
				itemIndex,
			});
			// An empty answer (204) still means the address was released.
			return released && typeof released === 'object' ? (released as IDataObject) : { _id: email, released: true };
		}
		case 'setWebhook': {
			const webhook = (this.getNodeParameter('webhookUrl', itemIndex) as string).trim();
			return (await mailroomRequest.call(this, 'PUT', `/api/private-address-forwarding/${addressPath(email)}`, {
				body: { webhook: webhook || null },
				itemIndex,
				fieldNames: { webhook: 'Webhook URL' },
			})) as IDataObject;
		}
	}
	throw new NodeOperationError(this.getNode(), `Unknown address operation "${operation}"`, { itemIndex });
}
