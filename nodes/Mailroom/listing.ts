import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { mailroomRequest } from '../shared/transport';

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
