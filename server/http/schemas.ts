/** JSON schemas shared by routes: responses are serialised through them, so they fix the field set. */

export const errorSchema = {
	$id: 'Error',
	type: 'object',
	properties: { error: { type: 'string' }, message: { type: 'string' } },
	required: ['error', 'message'],
} as const;

export const addressObjectSchema = {
	$id: 'AddressObject',
	type: 'object',
	properties: { address: { type: 'string' }, name: { type: 'string' } },
	required: ['address', 'name'],
} as const;

const addressList = { type: 'array', items: { $ref: 'AddressObject#' } } as const;
const nullableAddressList = { anyOf: [{ type: 'null' }, addressList] } as const;

export const messageSchema = {
	$id: 'Message',
	type: 'object',
	description: 'A received message (spec 2.1); one record per recipient inbox.',
	properties: {
		_id: { type: 'string' },
		from: addressList,
		to: addressList,
		cc: nullableAddressList,
		bcc: nullableAddressList,
		subject: { type: 'string' },
		savedBy: { type: ['string', 'null'] },
		originalInbox: { type: 'string' },
		inbox: { type: 'string' },
		domain: { type: 'string' },
		received: { type: 'string', format: 'date-time' },
		size: { type: 'integer', description: 'bytes of the raw message' },
		attachments: { anyOf: [{ type: 'null' }, { type: 'array', items: { type: 'string' } }], description: 'MD5 hex of each attachment' },
		ip: { type: 'string' },
		via: { type: 'string' },
		folder: { type: 'string', enum: ['inbox', 'all', 'spam', 'trash'] },
		labels: { type: 'array', items: { type: 'string' } },
		read: { type: ['boolean', 'null'] },
		rtls: { type: 'boolean' },
		links: { type: 'array', items: { type: 'string' } },
		spam: { type: 'number', minimum: 0, maximum: 1 },
	},
	required: [
		'_id', 'from', 'to', 'cc', 'bcc', 'subject', 'savedBy', 'originalInbox', 'inbox', 'domain', 'received', 'size',
		'attachments', 'ip', 'via', 'folder', 'labels', 'read', 'rtls', 'links', 'spam',
	],
} as const;

export const forwardingSchema = {
	$id: 'Forwarding',
	type: 'object',
	description: 'The forwarding record of a private address (spec 2.2).',
	properties: {
		_id: { type: 'string', description: 'the email address' },
		owner: { type: 'string', description: 'id of the owning account' },
		forward: { type: ['string', 'null'] },
		enablews: { type: 'boolean' },
		webhook: { type: ['string', 'null'] },
		webhookSlack: { type: ['string', 'null'] },
		webhookSlackToFrom: { type: ['boolean', 'null'] },
		catchAll: { type: ['string', 'null'], description: 'the domain this address is the catch-all of (set with PUT /api/domains/{domain})' },
		password: { type: 'null' },
		info: { type: 'string' },
		created: { type: 'string', format: 'date-time' },
		updated: { type: 'string', format: 'date-time' },
	},
	required: ['_id', 'owner', 'forward', 'enablews', 'webhook', 'webhookSlack', 'webhookSlackToFrom', 'catchAll', 'password', 'info', 'created', 'updated'],
} as const;

/** A URL setting: "" or null clears it. */
const urlOrClear = (description: string) =>
	({
		anyOf: [{ type: 'null' }, { type: 'string', maxLength: 0 }, { type: 'string', maxLength: 2048, format: 'uri', pattern: '^https?://' }],
		description,
	}) as const;

/** The one body for changing an address's forwarding: PUT /api/addresses/:email, reserve, and private-address-forwarding. */
export const forwardingUpdateSchema = {
	$id: 'ForwardingUpdate',
	type: 'object',
	description: 'Forwarding settings of a private address. Every field is optional; fields left out keep their value.',
	properties: {
		webhook: urlOrClear('http(s) URL to POST each message to as JSON; "" or null stops it'),
		forward: {
			anyOf: [{ type: 'null' }, { type: 'string', maxLength: 0 }, { type: 'string', maxLength: 254, format: 'email' }],
			description: 'address to re-send each message to (uses one outgoing credit per message); "" or null stops it',
		},
		enablews: { type: 'boolean', description: 'publish each message to WebSocket subscribers of the address' },
		info: { type: 'string', maxLength: 1000, description: 'a free-text note' },
		webhookSlack: urlOrClear('Slack incoming-webhook URL to post a short summary of each message to; "" or null stops it'),
		webhookSlackToFrom: { type: ['boolean', 'null'], description: 'include the sender and recipients in the Slack summary' },
	},
} as const;

export interface ForwardingUpdateBody {
	webhook?: string | null;
	forward?: string | null;
	enablews?: boolean;
	info?: string;
	webhookSlack?: string | null;
	webhookSlackToFrom?: boolean | null;
}

export const domainSchema = {
	$id: 'Domain',
	type: 'object',
	description: 'A custom domain owned by an account: all mail to it is private to that account.',
	properties: {
		_id: { type: 'string', description: 'the domain' },
		owner: { type: 'string', description: 'id of the owning account' },
		catchAll: { type: ['string', 'null'], description: 'the catch-all address: its forwarding settings apply to the addresses of the domain that lack them (set with PUT /api/domains/{domain})' },
		created: { type: 'string', format: 'date-time' },
	},
	required: ['_id', 'owner', 'catchAll', 'created'],
} as const;

export const SHARED_SCHEMAS = [errorSchema, addressObjectSchema, messageSchema, forwardingSchema, forwardingUpdateSchema, domainSchema];

export const emailParams = {
	type: 'object',
	properties: { email: { type: 'string', maxLength: 254 } },
	required: ['email'],
} as const;

export const domainParams = {
	type: 'object',
	properties: { domain: { type: 'string', maxLength: 253 } },
	required: ['domain'],
} as const;

export const emailAndMessageParams = {
	type: 'object',
	properties: { email: { type: 'string', maxLength: 254 }, messageId: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } },
	required: ['email', 'messageId'],
} as const;

/** Standard error responses, so every status a route can give is documented. */
export function errorResponses(...codes: number[]) {
	return Object.fromEntries(codes.map((code) => [code, { $ref: 'Error#' }]));
}
