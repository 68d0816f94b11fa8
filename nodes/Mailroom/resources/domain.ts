import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { mailroomRequest } from '../../shared/transport';
import { getManyMessages, ItemList, listSimplifyProperties, MAX_PAGE, returnAllAndLimit, wantedCount } from '../listing';
import { listedMessageItems, type ListedRecord } from '../simplified-list';

const show = (operation: string[]) => ({ show: { resource: ['domain'], operation } });

export const domainDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		description: 'What to do with your custom domains',
		displayOptions: { show: { resource: ['domain'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description: 'Get one of your domains with its message count and catch-all address',
				action: 'Get a domain',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List the custom domains of your account',
				action: 'Get many domains',
			},
			{
				name: 'Get Messages',
				value: 'getMessages',
				description: 'List the messages of every address of a domain, newest first',
				action: 'Get the messages of a domain',
			},
		],
		default: 'getAll',
	},
	{
		displayName: 'Domain',
		name: 'domain',
		type: 'string',
		placeholder: 'example.com',
		required: true,
		default: '',
		displayOptions: show(['get', 'getMessages']),
		description: 'A custom domain your account owns',
	},
	...returnAllAndLimit('domain', ['getAll', 'getMessages'], MAX_PAGE),
	...listSimplifyProperties('domain', ['getMessages']),
];

export async function executeDomain(
	this: IExecuteFunctions,
	operation: string,
	itemIndex: number,
): Promise<IDataObject | IDataObject[] | ItemList> {
	if (operation === 'getAll') {
		const domains = (await mailroomRequest.call(this, 'GET', '/api/domains', { itemIndex })) as IDataObject[];
		return domains.slice(0, wantedCount.call(this, itemIndex));
	}
	const domain = encodeURIComponent((this.getNodeParameter('domain', itemIndex) as string).trim().toLowerCase());
	switch (operation) {
		case 'get':
			return (await mailroomRequest.call(this, 'GET', `/api/domains/${domain}`, { itemIndex })) as IDataObject;
		case 'getMessages': {
			const records = (await getManyMessages.call(this, `/api/domains/${domain}/messages`, itemIndex)) as ListedRecord[];
			const simplify = this.getNodeParameter('simplify', itemIndex) as boolean;
			return new ItemList(await listedMessageItems.call(this, records, { simplify }, itemIndex));
		}
	}
	throw new NodeOperationError(this.getNode(), `Unknown domain operation "${operation}"`, { itemIndex });
}
