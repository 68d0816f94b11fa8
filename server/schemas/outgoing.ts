/** Sent mail as the API shows it, and the body that sends it. */
import Type, { type Static } from 'typebox';
import { DateTime, Nullable } from './shared';

/** Most distinct recipients one send may have (each costs a credit). */
export const MAX_RECIPIENTS = 50;

const sendStatus = (description?: string) => Type.Enum(['queued', 'delivered', 'failed'], { description });
export type SendStatus = Static<ReturnType<typeof sendStatus>>;

/** Where a recipient's copy goes: into a local inbox, or out through the SMTP relay. */
export const RouteSchema = Type.Enum(['local', 'relay'], {
	description: 'local: stored in an inbox here; relay: sent through the SMTP relay',
});
export type Route = Static<typeof RouteSchema>;

export const OutgoingRecipientSchema = Type.Object({
	address: Type.String(),
	route: RouteSchema,
	status: sendStatus(),
	error: Nullable(Type.String(), { description: "this recipient's last failure (the relay's reply when it gave one)" }),
});
export type OutgoingRecipient = Static<typeof OutgoingRecipientSchema>;

const outgoingProperties = {
	_id: Type.String(),
	from: Type.String({ description: 'the sender address' }),
	to: Type.Array(Type.String(), { description: 'the recipient addresses' }),
	subject: Type.String(),
	status: sendStatus('queued while any recipient is pending; delivered when all were; failed when any failed for good'),
	sent: DateTime(),
	lastError: Nullable(Type.String(), { description: "the last delivery failure (the relay's reply when it gave one)" }),
	attempts: Type.Integer({ description: 'delivery attempts made so far' }),
	recipients: Type.Array(OutgoingRecipientSchema),
};

/** A sent message as GET /api/outgoing-messages returns it. */
export const OutgoingSchema = Type.Object(outgoingProperties, { $id: 'Outgoing' });
export type OutgoingRecord = Static<typeof OutgoingSchema>;

/** The answer to a send: the sent message, and what the account has left. */
export const SentSchema = Type.Object({
	...outgoingProperties,
	id: Type.String({ description: 'the same as _id (the name Mailsac used)' }),
	creditsRemaining: Type.Integer({ description: 'outgoing-message credits left after this send' }),
	warnings: Type.Array(Type.String()),
});

/** The body of POST /api/outgoing-messages (spec 2.4). */
export const SendRequestSchema = Type.Object({
	_serviceKey: Type.Optional(Type.String({ description: 'the API key, if not sent in the Service-Key header' })),
	to: Type.Union(
		[
			Type.String({ minLength: 1, maxLength: MAX_RECIPIENTS * 320 }),
			Type.Array(Type.String({ maxLength: 320 }), { minItems: 1, maxItems: MAX_RECIPIENTS }),
		],
		{ description: `one address, a comma-separated list or an array (at most ${MAX_RECIPIENTS}); "Name <address>" allowed` },
	),
	from: Type.String({ maxLength: 320, description: 'one of your private addresses, or an address in one of your domains' }),
	subject: Type.Optional(Type.String({ maxLength: 998, description: 'recommended: mail without a subject is often classed as spam' })),
	text: Type.Optional(Type.String({ description: 'plain-text body (text or html is required)' })),
	html: Type.Optional(Type.String({ description: 'HTML body' })),
});
export type SendRequest = Static<typeof SendRequestSchema>;
