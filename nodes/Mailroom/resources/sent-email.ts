import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { MAX_PAGE, returnAllAndLimit, wantedCount } from '../listing';
import { mailroomRequest } from '../../shared/transport';

const RESOURCE = 'sentEmail';

export const sentEmailDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		description: 'What to do with the mail your account sent',
		displayOptions: { show: { resource: [RESOURCE] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description: `List the emails your account sent, newest first, with the status of each recipient (at most the ${MAX_PAGE} newest)`,
				action: 'Get many sent emails',
			},
		],
		default: 'getAll',
	},
	...returnAllAndLimit(RESOURCE, ['getAll'], MAX_PAGE),
];

export async function executeSentEmail(this: IExecuteFunctions, operation: string, itemIndex: number): Promise<IDataObject[]> {
	if (operation !== 'getAll') {
		throw new NodeOperationError(this.getNode(), `Unknown sent email operation "${operation}"`, { itemIndex });
	}
	const limit = Math.min(wantedCount.call(this, itemIndex), MAX_PAGE);
	return (await mailroomRequest.call(this, 'GET', '/api/outgoing-messages', { qs: { limit }, itemIndex })) as IDataObject[];
}
