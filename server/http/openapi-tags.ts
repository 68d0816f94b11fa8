/**
 * The groups of the API reference (/docs): OpenAPI tags, given to the operations by their route URL here rather than route
 * by route. Listed in the order the page shows them; an operation goes to the first group whose pattern its URL (Fastify's
 * form, `:email`) matches. test/server/http/openapi.test.ts checks that every operation has a group.
 */
const GROUPS: { name: string; description: string; urls: RegExp }[] = [
	{
		name: 'Messages',
		description: 'The mail of one inbox: list, count, read, wait for and delete messages',
		urls: /^\/api\/addresses\/:email\/(messages|message-count|wait-for-message)(\/:messageId)?$/,
	},
	{
		name: 'Message content',
		description: 'One message as text, sanitised or original HTML, raw source, headers, webhook payload, and its links checked',
		urls: /^\/api\/(text|raw|body|dirty)\/|\/messages\/:messageId\/(headers|payload|link-check)$/,
	},
	{
		name: 'Message state',
		description: 'Mark a message read or unread, star it, label it or move it to another folder',
		urls: /\/messages\/:messageId\/(labels|folder|read|star)(\/|$)/,
	},
	{
		name: 'Attachments',
		description: "A message's attachments: list them, download one",
		urls: /\/attachments(\/|$)/,
	},
	{
		name: 'Account inbox',
		description: 'All mail of your private addresses and domains at once: newest first, filtered, searched, starred',
		urls: /^\/api\/(inbox|inbox-filter|inbox-search|addresses\/starred\/messages)$/,
	},
	{
		name: 'Outgoing messages',
		description: 'Send mail (one credit per recipient) and follow its delivery; the suppression list of addresses that bounced',
		urls: /^\/api\/(outgoing-messages(\/:id)?|suppressions(\/:address)?)$/,
	},
	{
		name: 'Threads',
		description: 'Conversations: the received and sent messages that answer one another',
		urls: /^\/api\/threads\//,
	},
	{
		name: 'Addresses',
		description: 'Reserve private addresses and set where their mail goes: webhook, Slack, forwarding, websocket',
		urls: /^\/api\/(addresses|private-addresses-bulk|private-address-forwarding)(\/:email(\/availability)?)?$/,
	},
	{
		name: 'Domains',
		description: 'Custom domains: claim one, set its catch-all address, read and delete all its mail',
		urls: /^\/api\/domains(\/|$)/,
	},
	{
		name: 'Webhooks',
		description: 'Webhook subscriptions of an address, the signing secret, Recent Activity, delivery status and redelivery',
		urls: /webhook/,
	},
	{
		name: 'Account',
		description: 'Your account, what it holds, its API keys, and its chaos settings (SMTP failures on purpose)',
		urls: /^\/api\/me(\/|$)/,
	},
	{
		name: 'Admin',
		description: "The server's accounts, API keys, credits and domains, as the `mailroom` admin commands manage them (admin keys only)",
		urls: /^\/api\/admin\//,
	},
	{
		name: 'Health',
		description: 'Liveness and readiness checks for load balancers and orchestrators (no key, no rate limit)',
		urls: /^\/(livez|readyz)$/,
	},
];

/** The tags of the OpenAPI document, in the order of the page. */
export const API_TAGS = GROUPS.map(({ name, description }) => ({ name, description }));

/** The tag of the route at this URL; undefined when no group takes it. */
export function tagOf(url: string): string | undefined {
	return GROUPS.find((group) => group.urls.test(url))?.name;
}
