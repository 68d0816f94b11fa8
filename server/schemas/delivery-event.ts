/** What happens to sent mail, as the API shows it: delivery events, their subscriptions, and the suppression list. */
import Type, { type Static } from 'typebox';
import { DateTime, Nullable, WebhookUrl } from './shared';

/** Most event subscriptions one account may have: each event makes a delivery for every one that wants it. */
export const MAX_EVENT_SUBSCRIPTIONS = 25;

/** The changes of a recipient's status that are events (its first, queued, is none). */
export const EVENT_TYPES = ['delivered', 'deferred', 'bounced', 'complained', 'failed'] as const;
export const EventTypeSchema = Type.Enum(EVENT_TYPES, {
	description:
		'delivered: stored here, accepted by the relay, or reported delivered; deferred: a remote server reported a delay (4.x.x); ' +
		'bounced: a remote server reported a permanent failure (5.x.x); complained: the recipient reported it as spam; ' +
		'failed: the relay refused it, or the retries ran out',
});
export type EventType = Static<typeof EventTypeSchema>;

export const DeliveryEventSchema = Type.Object(
	{
		_id: Type.String({ description: 'event id' }),
		type: EventTypeSchema,
		sentMessageId: Type.String({ description: 'the _id of the sent message (GET /api/outgoing-messages/{id})' }),
		from: Type.String({ description: 'the sender address of the sent message' }),
		subject: Type.String({ description: 'the subject of the sent message' }),
		recipient: Type.String({ description: 'the recipient whose status changed' }),
		statusCode: Nullable(Type.String(), { description: 'the RFC 3463 status code the report gave (e.g. 5.1.1), else null' }),
		diagnostic: Nullable(Type.String(), {
			description: "the remote server's or the relay's words (Diagnostic-Code, or the relay's reply), else null",
		}),
		reportingMta: Nullable(Type.String(), { description: 'the server that sent the delivery report (Reporting-MTA), else null' }),
		bounceMessageId: Nullable(Type.String(), {
			description: "the _id of the delivery report that made this change, a message in the sender's inbox; null for none",
		}),
		time: DateTime({ description: 'when the status changed' }),
	},
	{
		$id: 'DeliveryEvent',
		description: "A change of a sent message's recipient status: POSTed to event subscriptions, sent over the websocket",
		examples: [
			{
				_id: 'VP7ZCk8HOLrz1_NZ',
				type: 'bounced',
				sentMessageId: 'VP7ZCk8GVncmCJ3p',
				from: 'alice@example.com',
				subject: 'Your order #1042 has shipped',
				recipient: 'bob@example.org',
				statusCode: '5.1.1',
				diagnostic: 'smtp; 550 5.1.1 The email account that you tried to reach does not exist',
				reportingMta: 'dns; mx.example.org',
				bounceMessageId: 'VP7ZCk8HOLrz1_Na',
				time: '2026-11-28T09:45:14.210Z',
			},
		],
	},
);
export type DeliveryEvent = Static<typeof DeliveryEventSchema>;

export const EventSubscriptionSchema = Type.Object(
	{
		_id: Type.String({ description: 'subscription id' }),
		url: Type.String(),
		events: Type.Array(EventTypeSchema, { description: 'the event types POSTed to url' }),
		created: DateTime(),
	},
	{
		$id: 'EventSubscription',
		description: "A consumer of the account's delivery events: each event of the types listed is POSTed to its url",
		examples: [
			{
				_id: 'VP7ZCk8HOLrz1_NZ',
				url: 'https://n8n.example.com/webhook/5b0c0c8e',
				events: ['bounced', 'failed'],
				created: '2026-11-21T10:30:00.000Z',
			},
		],
	},
);
export type EventSubscription = Static<typeof EventSubscriptionSchema>;

export const NewEventSubscriptionSchema = Type.Object(
	{
		url: WebhookUrl({ description: 'http(s) URL to POST each event to as JSON' }),
		events: Type.Array(EventTypeSchema, { minItems: 1, uniqueItems: true, description: 'the event types to POST' }),
	},
	{ additionalProperties: false, examples: [{ url: 'https://n8n.example.com/webhook/5b0c0c8e', events: ['bounced', 'failed'] }] },
);
export type NewEventSubscription = Static<typeof NewEventSubscriptionSchema>;

export const SuppressionSchema = Type.Object(
	{
		address: Type.String({ description: 'the recipient that bounced (or complained)' }),
		reason: Type.Enum(['bounced', 'complained'], { description: 'why it is suppressed' }),
		sentMessageId: Type.String({ description: 'the sent message whose report put it here' }),
		statusCode: Nullable(Type.String(), { description: 'the status code of the report (e.g. 5.1.1)' }),
		diagnostic: Nullable(Type.String(), { description: "the remote server's words" }),
		bounceMessageId: Nullable(Type.String(), { description: "the _id of the report, a message in the sender's inbox" }),
		created: DateTime(),
	},
	{
		$id: 'Suppression',
		description: 'An address your account no longer sends to: a send naming it is refused unless it says sendToSuppressed',
		examples: [
			{
				address: 'bob@example.org',
				reason: 'bounced',
				sentMessageId: 'VP7ZCk8GVncmCJ3p',
				statusCode: '5.1.1',
				diagnostic: 'smtp; 550 5.1.1 user unknown',
				bounceMessageId: 'VP7ZCk8HOLrz1_Na',
				created: '2026-11-28T09:45:14.210Z',
			},
		],
	},
);
export type Suppression = Static<typeof SuppressionSchema>;
