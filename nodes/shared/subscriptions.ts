import type { IDataObject, IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { addressPath } from './transport';

/** A webhook subscription of an address, as the Mailroom API shows it. */
export interface Subscription extends IDataObject {
	_id: string;
	address: string;
	url: string;
	filter: SubscriptionFilters | null;
}

/** A subscription's filter as the nodes' Filters collection holds it: Mailroom posts only the mail that passes it. */
export interface SubscriptionFilters {
	from?: string;
	subject?: string;
	hasAttachments?: boolean;
	/** Only mail whose sender was authenticated (SPF, DKIM, DMARC); off: every sender. */
	authenticated?: boolean;
}

/** Where an address's subscriptions are listed and added. */
export const subscriptionsPath = (email: string) => `/api/addresses/${addressPath(email)}/webhooks`;

/** The address whose mail a subscription gets: a private or catch-all address of the account. */
export const subscribedAddress = (description: string, displayOptions?: IDisplayOptions): INodeProperties => ({
	displayName: 'Email Address',
	name: 'email',
	type: 'string',
	placeholder: 'orders@example.com',
	required: true,
	default: '',
	...(displayOptions && { displayOptions }),
	description,
});

/** The Filters options: the parts of a subscription's filter. */
export const subscriptionFilterOptions: INodeProperties[] = [
	{
		displayName: 'Authenticated Senders Only',
		name: 'authenticated',
		type: 'boolean',
		default: true,
		description:
			'Whether to take only mail whose sender Mailroom authenticated (DMARC passed, or SPF or DKIM for the From domain when it publishes no DMARC policy): forged senders are left out',
	},
	{
		displayName: 'From Contains',
		name: 'from',
		type: 'string',
		default: '',
		description: "Only mail whose sender's address or name contains this (case-insensitive)",
	},
	{
		displayName: 'Has Attachments',
		name: 'hasAttachments',
		type: 'boolean',
		default: true,
		description: 'Whether to take only mail with attachments (off: only mail without)',
	},
	{
		displayName: 'Subject Contains',
		name: 'subject',
		type: 'string',
		default: '',
		description: 'Only mail whose subject contains this (case-insensitive)',
	},
];

/** The filter the Filters collection makes: the filters that are set (an empty text filters nothing); null for none. */
export function subscriptionFilter(filters: SubscriptionFilters): SubscriptionFilters | null {
	const filter: SubscriptionFilters = {};
	if (filters.from?.trim()) filter.from = filters.from.trim();
	if (filters.subject?.trim()) filter.subject = filters.subject.trim();
	if (filters.hasAttachments !== undefined) filter.hasAttachments = filters.hasAttachments;
	if (filters.authenticated) filter.authenticated = true;
	return Object.keys(filter).length ? filter : null;
}

/** The body that adds a subscription posting what passes the Filters collection to `url`. */
export function subscriptionBody(url: string, filters: SubscriptionFilters): IDataObject {
	const filter = subscriptionFilter(filters);
	return filter ? { url, filter: { ...filter } } : { url };
}
