import type {
	IDisplayOptions,
	IExecuteFunctions,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
	INodeProperties,
} from 'n8n-workflow';

import { mailroomRequest } from './transport';

/** The listSearch method that lists the account's addresses. */
export const SEARCH_ADDRESSES = 'searchAddresses';

/** Two @-free parts around one @: enough to catch a typo before a request is made. */
const ADDRESS_REGEX = '^[^@\\s]+@[^@\\s]+$';

interface AddressParameter {
	displayName: string;
	name: string;
	description: string;
	placeholder: string;
	displayOptions: IDisplayOptions;
}

/**
 * An address picked from the account's addresses (searchable, as n8n lists Gmail labels or Slack channels) or typed by
 * hand. Its value is `{__rl, mode, value}`; emailParameter reads it, and the plain string of an earlier version too.
 */
export const addressLocator = ({ displayName, name, description, placeholder, displayOptions }: AddressParameter): INodeProperties => ({
	displayName,
	name,
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	displayOptions,
	description,
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select an address...',
			typeOptions: { searchListMethod: SEARCH_ADDRESSES, searchable: true },
		},
		{
			displayName: 'By Address',
			name: 'email',
			type: 'string',
			placeholder,
			validation: [{ type: 'regex', properties: { regex: ADDRESS_REGEX, errorMessage: 'Not an email address' } }],
		},
	],
});

/** An address parameter, whether an address locator (version 1.2 on) or the plain string of an earlier version. */
export const emailParameter = (context: IExecuteFunctions, name: string, itemIndex: number) =>
	(context.getNodeParameter(name, itemIndex, '', { extractValue: true }) as string).trim();

interface AddressRecord {
	_id: string;
	/** The domain whose catch-all address it is, or null. */
	catchAll: string | null;
}

interface DomainRecord {
	_id: string;
}

/**
 * The account's reserved addresses (a domain's catch-all named so), those containing the filter (case-insensitive); and
 * the filter itself when it is an address of one of the account's domains, which is the account's without being reserved.
 */
export async function searchAddresses(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const [addresses, domains] = (await Promise.all([
		mailroomRequest.call(this, 'GET', '/api/addresses'),
		mailroomRequest.call(this, 'GET', '/api/domains'),
	])) as [AddressRecord[], DomainRecord[]];
	const wanted = (filter ?? '').trim().toLowerCase();
	const results: INodeListSearchItems[] = addresses.map(({ _id, catchAll }) => ({
		name: catchAll ? `${_id} (catch-all of ${catchAll})` : _id,
		value: _id,
	}));
	const typedDomain = new RegExp(ADDRESS_REGEX).test(wanted) ? wanted.split('@')[1] : undefined;
	if (typedDomain && domains.some((domain) => domain._id === typedDomain) && !addresses.some(({ _id }) => _id === wanted))
		results.push({ name: `${wanted} (in ${typedDomain})`, value: wanted });
	return { results: results.filter((item) => item.name.toLowerCase().includes(wanted)) };
}
