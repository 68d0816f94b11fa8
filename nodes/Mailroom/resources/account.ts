import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { mailroomRequest } from '../../shared/transport';

export const accountDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		description: 'What to do with your account',
		displayOptions: { show: { resource: ['account'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description:
					'Get the account of the API key: its ID, name, the outgoing message credits it has left (sendsRemaining), whether it is an admin, and when it was created',
				action: 'Get your account',
			},
		],
		default: 'get',
	},
];

export async function executeAccount(this: IExecuteFunctions, operation: string, itemIndex: number): Promise<IDataObject> {
	if (operation !== 'get') {
		throw new NodeOperationError(this.getNode(), `Unknown account operation "${operation}"`, { itemIndex });
	}
	return (await mailroomRequest.call(this, 'GET', '/api/me', { itemIndex })) as IDataObject;
}
