import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { mailroomRequest } from '../shared/transport';
import type { ListedRecord } from './simplified-list';

/** Account-wide search answers at most this many messages (GET /api/inbox-search). */
export const SEARCH_LIMIT = 100;

/** The Filters of Message → Get Many, as n8n's Gmail node names them. */
export const getManyFilters: INodeProperties = {
	displayName: 'Filters',
	name: 'filters',
	type: 'collection',
	placeholder: 'Add Filter',
	default: {},
	displayOptions: { show: { resource: ['message'], operation: ['getAll'] } },
	description:
		'Conditions the messages must meet, all of them. With any, the messages are found by search, which covers the addresses and domains of your account only (not public inboxes).',
	options: [
		{
			displayName: 'From',
			name: 'sender',
			type: 'string',
			default: '',
			placeholder: 'billing@vendor.example',
			description: "Text the sender's address or name must contain (case-insensitive)",
		},
		{
			displayName: 'Label',
			name: 'label',
			type: 'string',
			default: '',
			placeholder: 'paid',
			description: 'Only messages with this label (exactly, case and all)',
		},
		{
			displayName: 'Query',
			name: 'q',
			type: 'string',
			default: '',
			placeholder: 'invoice has:attachment -from:noreply',
			description:
				'Words and "quoted phrases" found in the sender, recipients, subject or body, and operators: from:, to:, subject:, label:, after:/before:, has:attachment, is:read, is:unread, is:starred, is:authenticated; - before any of them excludes it',
		},
		{
			displayName: 'Read Status',
			name: 'readStatus',
			type: 'options',
			default: 'both',
			options: [
				{ name: 'Read and Unread', value: 'both', description: 'Every message, read or not' },
				{ name: 'Read Only', value: 'read', description: 'Messages marked read' },
				{ name: 'Unread Only', value: 'unread', description: 'Messages not marked read, and those never marked' },
			],
			description: 'Mail never marked read counts as unread',
		},
		{
			displayName: 'Received After',
			name: 'receivedAfter',
			type: 'dateTime',
			default: '',
			description: 'Only messages received at or after this time',
		},
		{
			displayName: 'Received Before',
			name: 'receivedBefore',
			type: 'dateTime',
			default: '',
			description: 'Only messages received before this time',
		},
	],
};

export interface GetManyFilters {
	label?: string;
	q?: string;
	readStatus?: 'both' | 'read' | 'unread';
	receivedAfter?: string;
	receivedBefore?: string;
	sender?: string;
}

/** A value as the search language takes it whatever it holds: in quotes, `"` and `\` escaped. */
const quoted = (value: string) => `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`;

/** A date-time filter as the search language takes it (ISO 8601, UTC); the node fails on one that is no time. */
function isoTime(value: string, filter: string) {
	const time = new Date(value);
	if (Number.isNaN(time.getTime())) throw new Error(`${filter} is not a date and time: "${value}"`);
	return time.toISOString();
}

/** The search conditions of the filters (without a time bound before, which paging adds); none when no filter is set. */
export function filterConditions({ label, q, readStatus, receivedAfter, sender }: GetManyFilters): string[] {
	return [
		...(sender?.trim() ? [`from:${quoted(sender.trim())}`] : []),
		...(label ? [`label:${quoted(label)}`] : []),
		...(readStatus === 'read' ? ['is:read'] : readStatus === 'unread' ? ['is:unread'] : []),
		...(receivedAfter ? [`after:${isoTime(receivedAfter, 'Received After')}`] : []),
		...(q?.trim() ? [q.trim()] : []),
	];
}

export const hasFilters = (filters: GetManyFilters) => filterConditions(filters).length > 0 || !!filters.receivedBefore;

/**
 * Get Many with filters: the inbox's messages meeting them, newest first, found by search (`to:` the inbox, kept only
 * when it is the inbox: `to:` also matches To addresses containing it). Search answers SEARCH_LIMIT at most, so each next
 * page asks for mail received before the last one of the page, which is exact within one inbox (its `received` are distinct).
 */
export async function filteredMessages(
	this: IExecuteFunctions,
	email: string,
	filters: GetManyFilters,
	limit: number,
	itemIndex: number,
): Promise<ListedRecord[]> {
	const inbox = email.toLowerCase();
	const conditions = [`to:${quoted(inbox)}`, ...filterConditions(filters)];
	const found: ListedRecord[] = [];
	let before = filters.receivedBefore ? isoTime(filters.receivedBefore, 'Received Before') : undefined;
	while (found.length < limit) {
		const query = [...conditions, ...(before ? [`before:${before}`] : [])].join(' ');
		const { messages } = (await mailroomRequest.call(this, 'GET', '/api/inbox-search', { qs: { query }, itemIndex })) as {
			messages: ListedRecord[];
		};
		found.push(...messages.filter((message) => message.inbox === inbox).slice(0, limit - found.length));
		if (messages.length < SEARCH_LIMIT) break;
		before = messages[messages.length - 1].received;
	}
	return found;
}
