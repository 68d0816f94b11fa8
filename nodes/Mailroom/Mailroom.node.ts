import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError, SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import { accountDescription, executeAccount } from './resources/account';
import { addressDescription, executeAddress } from './resources/address';
import { domainDescription, executeDomain } from './resources/domain';
import { emailDescription, executeEmail } from './resources/email';
import { executeMessage, messageDescription } from './resources/message';
import { executeSendAndWait, sendAndWaitWebhooks } from './resources/send-and-wait';
import { sendAndWaitWebhook } from './resources/send-and-wait-webhook';
import { executeSentEmail, sentEmailDescription } from './resources/sent-email';
import { executeWebhookSubscription, webhookSubscriptionDescription } from './resources/webhook-subscription';
import { searchAddresses } from '../shared/address-locator';
import { ItemList } from './listing';
import { NODE_VERSIONS } from './versions';

type ResourceExecutor = (
	this: IExecuteFunctions,
	operation: string,
	itemIndex: number,
	startedAt: Date,
) => Promise<IDataObject | IDataObject[] | INodeExecutionData | ItemList>;

/** An operation that outputs a file (Get Attachment) returns a whole item: JSON and binary data. */
const isItem = (result: IDataObject | IDataObject[] | INodeExecutionData): result is INodeExecutionData =>
	!Array.isArray(result) && typeof result.json === 'object' && typeof result.binary === 'object';

/** The items of an operation's result: a listing's items as they are, an item, or JSON to wrap. */
function resultItems(this: IExecuteFunctions, result: IDataObject | IDataObject[] | INodeExecutionData | ItemList) {
	if (result instanceof ItemList) return result.items;
	return isItem(result) ? [result] : this.helpers.returnJsonArray(result);
}

const executors: Record<string, ResourceExecutor> = {
	account: executeAccount,
	address: executeAddress,
	domain: executeDomain,
	email: executeEmail,
	message: executeMessage,
	sentEmail: executeSentEmail,
	webhookSubscription: executeWebhookSubscription,
};

/** Our operations fail with NodeApiError or NodeOperationError already; anything else gets wrapped. */
function itemError(node: INode, error: unknown, itemIndex: number) {
	if (error instanceof Error && 'context' in error && typeof error.context === 'object' && error.context) {
		(error.context as IDataObject).itemIndex = itemIndex;
		return error;
	}
	return new NodeOperationError(node, error as Error, { itemIndex });
}

export class Mailroom implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Mailroom',
		name: 'mailroom',
		icon: { light: 'file:mailroom.svg', dark: 'file:mailroom.dark.svg' },
		group: ['transform'],
		version: NODE_VERSIONS,
		defaultVersion: Math.max(...NODE_VERSIONS),
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Read, wait for and send mail, and manage addresses on a Mailroom server',
		defaults: { name: 'Mailroom' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'mailroomApi', required: true }],
		// Email → Send and Wait for Response resumes through these (n8n calls them only for a waiting execution).
		webhooks: sendAndWaitWebhooks,
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				description: 'What the operation works on',
				// By how often a workflow needs them, mail first; the values are what saved workflows hold, so they never change.
				options: [
					{ name: 'Message', value: 'message', description: 'Read, search, wait for and reply to received mail' },
					{ name: 'Email', value: 'email', description: 'Send outgoing mail' },
					{ name: 'Sent Email', value: 'sentEmail', description: 'The mail your account sent, with its status' },
					{ name: 'Address', value: 'address', description: 'Reserve, release and forward addresses' },
					{
						name: 'Webhook Subscription',
						value: 'webhookSubscription',
						description: 'Post the mail of an address to more URLs, each with its own filter',
					},
					{ name: 'Domain', value: 'domain', description: 'Read your custom domains and their mail' },
					{ name: 'Account', value: 'account', description: 'Your account and the credits it has left' },
				],
				default: 'message',
			},
			...messageDescription,
			...emailDescription,
			...sentEmailDescription,
			...accountDescription,
			...addressDescription,
			...domainDescription,
			...webhookSubscriptionDescription,
		],
	};

	methods = { listSearch: { searchAddresses } };
	webhook = sendAndWaitWebhook;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		// Sends once for all the items and waits, as n8n's own Send and Wait operations do.
		if (this.getNodeParameter('operation', 0) === SEND_AND_WAIT_OPERATION) return await executeSendAndWait.call(this);
		const startedAt = new Date();
		const items = this.getInputData();
		const returnData: INodeExecutionData[] = [];
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				const resource = this.getNodeParameter('resource', itemIndex);
				const operation = this.getNodeParameter('operation', itemIndex);
				const result = await executors[resource].call(this, operation, itemIndex, startedAt);
				returnData.push(
					...this.helpers.constructExecutionMetaData(resultItems.call(this, result), {
						itemData: { item: itemIndex },
					}),
				);
			} catch (error) {
				const failure = itemError(this.getNode(), error, itemIndex);
				if (!this.continueOnFail()) throw failure;
				returnData.push({
					json: {
						error: failure.message,
						...('httpCode' in failure && failure.httpCode ? { httpCode: failure.httpCode } : {}),
					},
					pairedItem: { item: itemIndex },
				});
			}
		}
		return [returnData];
	}
}
