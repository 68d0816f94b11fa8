/** Webhooks as the API shows them: subscriptions, a message's delivery, and each attempt (Recent Activity). */
import Type, { type Static } from 'typebox';
import { DateTime, Nullable, WebhookUrl } from './shared';

/** Most subscriptions one address may have: each message makes a delivery for every one of them. */
export const MAX_SUBSCRIPTIONS = 25;

export const SubscriptionFilterSchema = Type.Object(
	{
		from: Type.Optional(
			Type.String({ minLength: 1, maxLength: 256, description: "a sender's address or name contains this (case-insensitive)" }),
		),
		subject: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'the subject contains this (case-insensitive)' })),
		hasAttachments: Type.Optional(Type.Boolean({ description: 'true: only mail with attachments; false: only mail without' })),
		authenticated: Type.Optional(
			Type.Boolean({
				description:
					"true: only mail whose sender was authenticated (the record's auth.authenticated); false: only mail whose sender was not",
			}),
		),
	},
	{ additionalProperties: false, description: 'Every part given must match; mail that does not match makes no delivery.' },
);
export type SubscriptionFilter = Static<typeof SubscriptionFilterSchema>;

export const WebhookSubscriptionSchema = Type.Object(
	{
		_id: Type.String({ description: 'subscription id' }),
		address: Type.String({ description: 'the address (private or catch-all) whose mail it gets' }),
		url: Type.String(),
		filter: Nullable(SubscriptionFilterSchema, { description: 'null: every message' }),
		created: DateTime(),
	},
	{
		$id: 'WebhookSubscription',
		description: 'A consumer of the mail of an address: each message is POSTed to its url (spec 2.3 payload)',
		examples: [
			{
				_id: 'VP7ZCk8HOLrz1_NZ',
				address: 'alice@example.com',
				url: 'https://n8n.example.com/webhook/3f6c1a2e',
				filter: { subject: 'invoice' },
				created: '2026-11-21T10:30:00.000Z',
			},
		],
	},
);
export type WebhookSubscription = Static<typeof WebhookSubscriptionSchema>;

export const NewSubscriptionSchema = Type.Object(
	{
		url: WebhookUrl({ description: 'http(s) URL to POST each message to as JSON' }),
		filter: Type.Optional(SubscriptionFilterSchema),
	},
	{ additionalProperties: false, examples: [{ url: 'https://n8n.example.com/webhook/3f6c1a2e', filter: { subject: 'invoice' } }] },
);
export type NewSubscription = Static<typeof NewSubscriptionSchema>;

const deliveryStatus = Type.Enum(['pending', 'delivered', 'failed', 'refused']);
export type DeliveryStatus = Static<typeof deliveryStatus>;

export const AttemptStatusSchema = Type.Enum(['delivered', 'retrying', 'failed', 'refused']);
export type AttemptStatus = Static<typeof AttemptStatusSchema>;

export const WebhookDeliverySchema = Type.Object(
	{
		_id: Type.String({ description: 'delivery id; also the webhook-id header of every attempt' }),
		messageId: Type.String(),
		address: Type.String(),
		url: Type.String(),
		subscriptionId: Nullable(Type.String(), { description: "the subscription it was made for; null for the address's webhook" }),
		status: deliveryStatus,
		attempts: Type.Integer(),
		lastStatusCode: Nullable(Type.Integer()),
		lastError: Nullable(Type.String()),
		nextRetry: Nullable(DateTime()),
		created: DateTime(),
		updated: DateTime(),
	},
	{ description: 'The webhook delivery of one message' },
);
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>;

export const WebhookAttemptSchema = Type.Object(
	{
		_id: Type.String(),
		deliveryId: Type.String(),
		messageId: Type.String(),
		address: Type.String(),
		url: Type.String(),
		subscriptionId: Nullable(Type.String(), { description: "the subscription it was made for; null for the address's webhook" }),
		attempt: Type.Integer({ description: '1 for the first attempt of the delivery' }),
		status: AttemptStatusSchema,
		statusCode: Nullable(Type.Integer(), { description: "the receiver's HTTP status; null when no response came" }),
		error: Nullable(Type.String()),
		durationMs: Type.Integer(),
		time: DateTime(),
		nextRetry: Nullable(DateTime()),
	},
	{ description: 'One webhook attempt' },
);
export type WebhookAttempt = Static<typeof WebhookAttemptSchema>;

/** Name and value of one header line, in the order sent or received. */
const HeaderLineSchema = Type.Object({ name: Type.String(), value: Type.String() });

/** A body as the log keeps it: its start, and how large the whole was. */
const loggedBody = (kept: string) => ({
	body: Type.String({ description: `the start of the body as UTF-8 text: the first ${kept}, all of it when smaller` }),
	bodyBytes: Type.Integer({
		description:
			'the size of the whole body in bytes (of a response larger than kept: its Content-Length, else the bytes read before the connection was closed)',
	}),
	bodyTruncated: Type.Boolean({ description: `true when the body was larger than ${kept} and body holds its start only` }),
});

export const WebhookExchangeRequestSchema = Type.Object({
	method: Type.Literal('POST'),
	url: Type.String(),
	headers: Type.Array(HeaderLineSchema, { description: 'as sent, signature headers included' }),
	...loggedBody('32 KB'),
});

export const WebhookExchangeResponseSchema = Type.Object({
	statusCode: Type.Integer(),
	headers: Type.Array(HeaderLineSchema, { description: 'as received' }),
	...loggedBody('16 KB'),
});

export const WebhookAttemptDetailSchema = Type.Object(
	{
		...WebhookAttemptSchema.properties,
		request: Nullable(WebhookExchangeRequestSchema, {
			description:
				'what was sent; null when nothing was (the SSRF policy refused the target, or the message was deleted first), and for attempts made before Mailroom kept requests',
		}),
		response: Nullable(WebhookExchangeResponseSchema, {
			description: 'what came back; null when no response came (a timeout, a connection error) or nothing was sent',
		}),
	},
	{ description: 'One webhook attempt with the request it sent and the response it got' },
);
export type WebhookAttemptDetail = Static<typeof WebhookAttemptDetailSchema>;

export const WebhookSecretSchema = Type.Object({
	secret: Type.String({ description: 'Standard Webhooks signing secret (whsec_ and base64)' }),
});
