import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { returnAllAndLimit, wantedCount } from '../listing';
import { beforeVersion1_2, fromVersion1_2 } from '../versions';
import { addressLocator } from '../../shared/address-locator';
import { subscribedAddress, subscriptionBody, subscriptionFilterOptions, subscriptionsPath } from '../../shared/subscriptions';
import { mailroomRequest } from '../../shared/transport';

const RESOURCE = 'webhookSubscription';
const show = (operation: string[]) => ({ show: { resource: [RESOURCE], operation } });
const ADDRESS_OPERATIONS = ['create', 'delete', 'getAll'];
const ADDRESS_DESCRIPTION = 'A private address or catch-all address of your account';

export const webhookSubscriptionDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		description: "What to do with an address's webhook subscriptions",
		displayOptions: { show: { resource: [RESOURCE] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: "Post the mail of one of your addresses to a URL, beside the address's own webhook and other subscriptions",
				action: 'Create a webhook subscription',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Delete a subscription for good: its URL gets no more mail',
				action: 'Delete a webhook subscription',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List the webhook subscriptions of one of your addresses, oldest first',
				action: 'Get many webhook subscriptions',
			},
		],
		default: 'getAll',
	},
	subscribedAddress(ADDRESS_DESCRIPTION, beforeVersion1_2(show(ADDRESS_OPERATIONS).show)),
	addressLocator({
		displayName: 'Email Address',
		name: 'email',
		placeholder: 'orders@example.com',
		displayOptions: fromVersion1_2(show(ADDRESS_OPERATIONS).show),
		description: `${ADDRESS_DESCRIPTION}, picked from its addresses or typed by hand`,
	}),
	{
		displayName: 'URL',
		name: 'url',
		type: 'string',
		placeholder: 'https://example.com/incoming-mail',
		required: true,
		default: '',
		displayOptions: show(['create']),
		description: 'URL that receives each message as a signed JSON POST',
	},
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: show(['create']),
		description: 'Mail that does not pass every filter given is not posted',
		options: subscriptionFilterOptions,
	},
	{
		displayName: 'Subscription ID',
		name: 'subscriptionId',
		type: 'string',
		required: true,
		default: '',
		displayOptions: show(['delete']),
		description: 'The _ID of the subscription, as Create or Get Many output it',
	},
	...returnAllAndLimit(RESOURCE, ['getAll']),
];

export async function executeWebhookSubscription(
	this: IExecuteFunctions,
	operation: string,
	itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
	// A picked or typed address (version 1.2) or the plain string of an earlier version.
	const path = subscriptionsPath(this.getNodeParameter('email', itemIndex, '', { extractValue: true }) as string);
	switch (operation) {
		case 'create': {
			const url = (this.getNodeParameter('url', itemIndex) as string).trim();
			const body = subscriptionBody(url, this.getNodeParameter('filters', itemIndex, {}));
			const fieldNames = { url: 'URL', filter: 'Filters', 'filter.from': 'From Contains', 'filter.subject': 'Subject Contains' };
			return (await mailroomRequest.call(this, 'POST', path, { body, itemIndex, fieldNames })) as IDataObject;
		}
		case 'getAll': {
			const subscriptions = (await mailroomRequest.call(this, 'GET', path, { itemIndex })) as IDataObject[];
			return subscriptions.slice(0, wantedCount.call(this, itemIndex));
		}
		case 'delete': {
			const id = encodeURIComponent((this.getNodeParameter('subscriptionId', itemIndex) as string).trim());
			return (await mailroomRequest.call(this, 'DELETE', `${path}/${id}`, { itemIndex })) as IDataObject;
		}
	}
	throw new NodeOperationError(this.getNode(), `Unknown webhook subscription operation "${operation}"`, { itemIndex });
}
