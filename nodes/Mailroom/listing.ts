import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { mailroomRequest } from '../shared/transport';
import { beforeVersion1_2, fromVersion1_2 } from './versions';

/** The most a Mailroom listing returns in one page. */
export const MAX_PAGE = 1000;

/** The Return All / Limit parameters of a Get Many style operation. */
export function returnAllAndLimit(resource: string, operation: string[], maxValue?: number): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			displayOptions: { show: { resource: [resource], operation } },
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1, ...(maxValue && { maxValue }) },
			default: 50,
			displayOptions: { show: { resource: [resource], operation, returnAll: [false] } },
			description: 'Max number of results to return',
		},
	];
}

/** A listed message: what paging needs of it. */
interface ListedMessage extends IDataObject {
	_id: string;
	received: string;
}

/**
 * Pages of a message listing (an inbox or a domain), newest first: each next page starts at the
 * `received` of the last record of the previous one.
 */
async function* messagePages(this: IExecuteFunctions, path: string, pageSize: number, itemIndex: number) {
	const seen = new Set<string>();
	let until: string | undefined;
	for (;;) {
		const page = (await mailroomRequest.call(this, 'GET', path, {
			qs: { limit: pageSize, ...(until && { until }) },
			itemIndex,
		})) as ListedMessage[];
		// `until` may or may not include the boundary record: skip what an earlier page had.
		const fresh = page.filter((message) => !seen.has(message._id));
		fresh.forEach((message) => seen.add(message._id));
		if (fresh.length) yield fresh;
		if (page.length < pageSize || !fresh.length) return;
		until = page[page.length - 1].received;
	}
}

/** The `limit` parameter, or no limit when `returnAll` is on. */
export function wantedCount(this: IExecuteFunctions, itemIndex: number): number {
	return this.getNodeParameter('returnAll', itemIndex) ? Infinity : this.getNodeParameter('limit', itemIndex);
}

/** Get Many of a message listing: as many messages as the Return All / Limit parameters ask for. */
export async function getManyMessages(this: IExecuteFunctions, path: string, itemIndex: number) {
	const limit = wantedCount.call(this, itemIndex);
	const messages: ListedMessage[] = [];
	for await (const page of messagePages.call(this, path, Math.min(limit, MAX_PAGE), itemIndex)) {
		messages.push(...page.slice(0, limit - messages.length));
		if (messages.length >= limit) break;
	}
	return messages;
}

/** The items an operation outputs whole (JSON and binary data), rather than JSON for the node to wrap. */
export class ItemList {
	constructor(readonly items: INodeExecutionData[]) {}
}

const simplifyDescription =
	'Whether to return each message as a simplified item (ID, thread, inbox, sender, recipients, Reply-To, subject, date, Message-ID, a snippet, read, labels, attachment names, codes, links, whether the sender is authenticated, time received) instead of its whole record';

/**
 * The Simplify switch of operations that output messages as a listing gives them: on by default from version 1.2;
 * earlier versions output the records, so their workflows keep every field they used.
 */
export const listSimplifyProperties = (resource: string, operation: string[]): INodeProperties[] => [
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: false,
		displayOptions: beforeVersion1_2({ resource: [resource], operation }),
		description: simplifyDescription,
	},
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		displayOptions: fromVersion1_2({ resource: [resource], operation }),
		description: simplifyDescription,
	},
];
