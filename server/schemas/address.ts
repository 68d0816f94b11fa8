/** A private address as the API shows it (its forwarding record, spec 2.2), and the body that changes it. */
import Type, { type Static } from 'typebox';
import { DateTime, Nullable, WebhookUrl, expects } from './shared';

export const ForwardingSchema = Type.Object(
	{
		_id: Type.String({ description: 'the email address' }),
		owner: Type.String({ description: 'id of the owning account' }),
		forward: Nullable(Type.String()),
		enablews: Type.Boolean(),
		webhook: Nullable(Type.String()),
		webhookSlack: Nullable(Type.String()),
		webhookSlackToFrom: Nullable(Type.Boolean()),
		catchAll: Nullable(Type.String(), { description: 'the domain this address is the catch-all of (set with PUT /api/domains/{domain})' }),
		password: Type.Null(),
		info: Type.String(),
		created: DateTime(),
		updated: DateTime(),
	},
	{
		$id: 'Forwarding',
		description: 'The forwarding record of a private address (spec 2.2).',
		examples: [
			{
				_id: 'alice@example.com',
				owner: 'VP7ZCk8GbBFSFz9o',
				forward: null,
				enablews: false,
				webhook: 'https://hooks.example.com/mailroom/alice',
				webhookSlack: null,
				webhookSlackToFrom: null,
				catchAll: null,
				password: null,
				info: 'signup tests',
				created: '2026-11-02T14:03:55.120Z',
				updated: '2026-11-20T08:12:40.031Z',
			},
		],
	},
);
export type ForwardingRecord = Static<typeof ForwardingSchema>;

/** A URL setting: "" or null clears it. */
const urlOrClear = (description: string) =>
	Type.Union([Type.Null(), Type.String({ maxLength: 0 }), WebhookUrl()], {
		description,
		...expects('an http(s) URL, or null or "" to clear it'),
	});

/** The one body for changing an address's forwarding: PUT /api/addresses/:email, reserve, and private-address-forwarding. */
export const ForwardingUpdateSchema = Type.Object(
	{
		webhook: Type.Optional(urlOrClear('http(s) URL to POST each message to as JSON; "" or null stops it')),
		forward: Type.Optional(
			Type.Union([Type.Null(), Type.String({ maxLength: 0 }), Type.String({ maxLength: 254, format: 'email' })], {
				description: 'address to re-send each message to (uses one outgoing credit per message); "" or null stops it',
				...expects('an email address, or null or "" to stop forwarding'),
			}),
		),
		enablews: Type.Optional(Type.Boolean({ description: 'publish each message to WebSocket subscribers of the address' })),
		info: Type.Optional(Type.String({ maxLength: 1000, description: 'a free-text note' })),
		webhookSlack: Type.Optional(urlOrClear('Slack incoming-webhook URL to post a short summary of each message to; "" or null stops it')),
		webhookSlackToFrom: Type.Optional(Nullable(Type.Boolean(), { description: 'include the sender and recipients in the Slack summary' })),
	},
	{
		$id: 'ForwardingUpdate',
		additionalProperties: false,
		description: 'Forwarding settings of a private address. Every field is optional; fields left out keep their value.',
		examples: [{ webhook: 'https://hooks.example.com/mailroom/alice', info: 'signup tests' }],
	},
);
export type ForwardingUpdateBody = Static<typeof ForwardingUpdateSchema>;
