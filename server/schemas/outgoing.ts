/** Sent mail as the API shows it, and the body that sends it. */
import Type, { type Static, type TObject } from 'typebox';
import { DateTime, Nullable, WebhookUrl, expects } from './shared';

/** Most distinct recipients one send may have, to, cc and bcc together (each costs a credit). */
export const MAX_RECIPIENTS = 50;
/** Most attachments one send may carry. */
export const MAX_ATTACHMENTS = 20;
/** Most extra headers one send may carry, and the longest name and value of one (a value fills at most one 998-character line). */
export const MAX_HEADERS = 20;
export const MAX_HEADER_NAME = 76;
export const MAX_HEADER_VALUE = 998;

/**
 * Where a sent message stands for a recipient: queued (an attempt is to come), delivered (stored here, or accepted by the
 * relay), deferred (a remote server reported a delay: 4.x.x), bounced (a remote server reported a permanent failure: 5.x.x),
 * complained (the recipient reported it as spam), failed (the relay refused it, or the retries ran out).
 */
export const RECIPIENT_STATUSES = ['queued', 'delivered', 'deferred', 'bounced', 'complained', 'failed'] as const;
const sendStatus = (description?: string) => Type.Enum(RECIPIENT_STATUSES, { description });
export type SendStatus = Static<ReturnType<typeof sendStatus>>;

/** Where a recipient's copy goes: into a local inbox, out through the SMTP relay, or to a test address answered here. */
export const RouteSchema = Type.Enum(['local', 'relay', 'test'], {
	description:
		'local: stored in an inbox here; relay: sent through the SMTP relay; test: a test address of --test-domain, answered here as a remote server would',
});
export type Route = Static<typeof RouteSchema>;

/** The address field of the send that named a recipient. */
export const RecipientFieldSchema = Type.Enum(['to', 'cc', 'bcc'], {
	description: 'the field of the send that named this recipient (an address named in several counts once, in the first of to, cc, bcc)',
});
export type RecipientField = Static<typeof RecipientFieldSchema>;

export const OutgoingRecipientSchema = Type.Object({
	address: Type.String(),
	field: RecipientFieldSchema,
	route: RouteSchema,
	status: sendStatus(),
	error: Nullable(Type.String(), { description: "this recipient's last failure (the relay's reply when it gave one)" }),
	note: Nullable(Type.String(), {
		description: 'what to know of its route: set when a server with no relay that accepts every domain kept the copy in its inbox here',
	}),
	returnPath: Nullable(Type.String(), {
		description:
			"the envelope sender (MAIL FROM) of this recipient's copy: bounces+<token>@<--return-path-domain>, so a bounce (DSN) coming back is " +
			'matched to this message and recipient; null for a copy stored here',
	}),
	statusCode: Nullable(Type.String(), { description: 'the status code of the last delivery report for it (RFC 3463, e.g. 5.1.1)' }),
	diagnostic: Nullable(Type.String(), { description: "the remote server's words in the last delivery report (Diagnostic-Code)" }),
	reportingMta: Nullable(Type.String(), { description: 'the server that sent the last delivery report (Reporting-MTA)' }),
	bounceMessageId: Nullable(Type.String(), {
		description: "the _id of the last delivery report received for it: a message in the sender's inbox, readable as any other",
	}),
});
export type OutgoingRecipient = Static<typeof OutgoingRecipientSchema>;

const outgoingProperties = {
	_id: Type.String(),
	threadId: Type.String({
		description: 'the conversation it belongs to (of the message it answers, when it answers one); GET /api/threads/{threadId} lists it',
	}),
	from: Type.String({ description: 'the sender address' }),
	to: Type.Array(Type.String(), { description: 'the To recipients' }),
	cc: Type.Array(Type.String(), { description: 'the Cc recipients' }),
	bcc: Type.Array(Type.String(), { description: 'the Bcc recipients (they got the message; no copy names them)' }),
	subject: Type.String(),
	inReplyTo: Nullable(Type.String(), { description: 'the _id of the received message this one answers; null when it answers none' }),
	status: sendStatus(
		'queued while any recipient is pending; else failed when any failed, bounced when any bounced, complained when any complained, ' +
			'deferred when any is deferred, and delivered when all were',
	),
	sent: DateTime(),
	lastError: Nullable(Type.String(), { description: "the last delivery failure (the relay's reply when it gave one)" }),
	attempts: Type.Integer({ description: 'delivery attempts made so far' }),
	recipients: Type.Array(OutgoingRecipientSchema, { description: 'every distinct recipient (to, cc and bcc) with its delivery status' }),
};

/** What the examples of the API reference send, and the record it makes. */
const EXAMPLE_SEND = {
	to: 'bob@example.org',
	from: 'Alice Martin <alice@example.com>',
	subject: 'Your order #1042 has shipped',
	text: 'Hi Bob,\n\nyour order #1042 left our warehouse today. Tracking number: 1Z999AA10123456784.\n\nAlice',
	html: '<p>Hi Bob,</p><p>your order <b>#1042</b> left our warehouse today. Tracking number: 1Z999AA10123456784.</p><p>Alice</p>',
};
const exampleRecord = {
	_id: 'VP7ZCk8GVncmCJ3p',
	threadId: '9d41e07b3c5a28f6b1e4d0c7',
	from: 'alice@example.com',
	to: ['bob@example.org'],
	cc: [],
	bcc: [],
	subject: EXAMPLE_SEND.subject,
	inReplyTo: null,
	status: 'delivered',
	sent: '2026-11-28T09:45:12.004Z',
	lastError: null,
	attempts: 1,
	recipients: [
		{
			address: 'bob@example.org',
			field: 'to',
			route: 'relay',
			status: 'delivered',
			error: null,
			note: null,
			returnPath: 'bounces+k3q9x2mfw7d1c8ab@mail.example.com',
			statusCode: null,
			diagnostic: null,
			reportingMta: null,
			bounceMessageId: null,
		},
	],
} satisfies Static<TObject<typeof outgoingProperties>>;

/** A sent message as GET /api/outgoing-messages returns it. */
export const OutgoingSchema = Type.Object(outgoingProperties, { $id: 'Outgoing', examples: [exampleRecord] });
export type OutgoingRecord = Static<typeof OutgoingSchema>;

/** The answer to a send: the sent message, and what the account has left. */
export const SentSchema = Type.Object(
	{
		...outgoingProperties,
		id: Type.String({ description: 'the same as _id (the name Mailsac used)' }),
		creditsRemaining: Type.Integer({ description: 'outgoing-message credits left after this send' }),
		warnings: Type.Array(Type.String()),
	},
	{
		examples: [
			{
				...exampleRecord,
				status: 'queued',
				attempts: 0,
				recipients: [{ ...exampleRecord.recipients[0], status: 'queued' }],
				id: exampleRecord._id,
				creditsRemaining: 99,
				warnings: [],
			},
		],
	},
);
export type Sent = Static<typeof SentSchema>;

/** How long a reply hook lives when its send gives no expiresAt, and the farthest expiresAt may be (days). */
export const REPLY_HOOK_DEFAULT_DAYS = 30;
export const REPLY_HOOK_MAX_DAYS = 366;

export const ReplyHookSchema = Type.Object(
	{
		url: WebhookUrl({
			description:
				'http(s) URL the first reply is POSTed to, as a webhook delivery (the payload of the address webhooks, signed with your webhook secret)',
		}),
		expiresAt: Type.Optional(
			DateTime({
				description: `until when a reply counts (at most ${REPLY_HOOK_MAX_DAYS} days ahead); ${REPLY_HOOK_DEFAULT_DAYS} days after the send when absent`,
			}),
		),
	},
	{
		additionalProperties: false,
		description:
			'post the first reply this message gets to url, once: the first message stored in its thread in one of your addresses or ' +
			'domains (In-Reply-To or References names it, or a message of its thread), but its own local copies',
		examples: [{ url: 'https://n8n.example.com/webhook-waiting/1042/5b0c0c8e', expiresAt: '2026-12-01T09:00:00Z' }],
	},
);
export type ReplyHookRequest = Static<typeof ReplyHookSchema>;

/** One address, a comma-separated list, or an array of them; "Name <address>" allowed. */
const addressList = (description: string) =>
	Type.Union(
		[
			Type.String({ minLength: 1, maxLength: MAX_RECIPIENTS * 320 }),
			Type.Array(Type.String({ maxLength: 320 }), { minItems: 1, maxItems: MAX_RECIPIENTS }),
		],
		{
			description: `${description}: one address, a comma-separated list or an array; "Name <address>" allowed; no line breaks`,
			...expects(`one address, a comma-separated list of addresses, or an array of at most ${MAX_RECIPIENTS} addresses`),
		},
	);

export const OutgoingAttachmentSchema = Type.Object(
	{
		filename: Type.String({
			minLength: 1,
			maxLength: 255,
			pattern: '^[^\\u0000-\\u001f\\u007f]+$',
			description: 'the file name the recipient sees (no control characters)',
			examples: ['invoice-1042.pdf'],
			...expects('a file name without control characters'),
		}),
		contentType: Type.Optional(
			Type.String({
				maxLength: 255,
				pattern: '^[A-Za-z0-9][\\w!#$&^.+-]*/[A-Za-z0-9][\\w!#$&^.+-]*(\\s*;[ -~]*)?$',
				description: 'the MIME type, e.g. application/pdf (parameters allowed); guessed from the file name when absent',
				examples: ['application/pdf'],
				...expects('a MIME type such as application/pdf'),
			}),
		),
		content: Type.String({
			description:
				'the bytes, base64 (RFC 4648: A-Z a-z 0-9 + /, padded with =, no line breaks); the message they make is held to --max-message-size',
			examples: ['JVBERi0xLjcKJcOkw7zDtsOfCjIgMCBvYmoKPDwvTGVuZ3RoIDMgMCBSPj4Kc3RyZWFtCg=='],
		}),
		contentId: Type.Optional(
			Type.String({
				minLength: 1,
				maxLength: 250,
				pattern: '^[!-;=?-~]+$',
				description: 'a Content-ID without the angle brackets, for an inline image the HTML shows with <img src="cid:...">',
				examples: ['logo@example.com'],
				...expects('a Content-ID of printable ASCII without spaces or angle brackets'),
			}),
		),
	},
	{ additionalProperties: false },
);
export type OutgoingAttachment = Static<typeof OutgoingAttachmentSchema>;

/**
 * The body of POST /api/outgoing-messages (spec 2.4, with the fields Mailroom adds). Its properties are listed as the API
 * reference shows them: what a sender fills in first, the Mailsac-compatible `_serviceKey` last.
 */
export const SendRequestSchema = Type.Object(
	{
		to: Type.Optional(addressList('the To recipients; required unless inReplyTo is given')),
		from: Type.String({
			maxLength: 320,
			description: 'one of your private addresses, or an address in one of your domains; "Name <address>" sets the sender name',
		}),
		subject: Type.Optional(
			Type.String({
				maxLength: 998,
				description:
					'recommended: mail without a subject is often classed as spam. With inReplyTo and no subject: "Re: " and the original subject',
			}),
		),
		text: Type.Optional(Type.String({ description: 'plain-text body (text or html is required)' })),
		html: Type.Optional(Type.String({ description: 'HTML body' })),
		cc: Type.Optional(addressList('the Cc recipients')),
		bcc: Type.Optional(addressList('the Bcc recipients: they get the message, and no copy names them')),
		replyTo: Type.Optional(addressList('where replies should go (the Reply-To header)')),
		attachments: Type.Optional(
			Type.Array(OutgoingAttachmentSchema, { maxItems: MAX_ATTACHMENTS, description: `files to attach (at most ${MAX_ATTACHMENTS})` }),
		),
		inReplyTo: Type.Optional(
			Type.String({
				minLength: 1,
				maxLength: 64,
				description:
					'the _id of a message in one of your private addresses or domains to answer: sets In-Reply-To and References from it; ' +
					'without to, the reply goes to its Reply-To addresses, else its From; without subject, it is "Re: " and its subject',
			}),
		),
		replyAll: Type.Optional(
			Type.Boolean({
				description:
					"with inReplyTo: also to the answered message's other recipients, its To in to and its Cc in cc, " +
					"but your account's own addresses",
			}),
		),
		headers: Type.Optional(
			Type.Unsafe<Record<string, string>>({
				type: 'object',
				additionalProperties: { type: 'string', maxLength: MAX_HEADER_VALUE },
				maxProperties: MAX_HEADERS,
				description:
					`extra headers, name to value (at most ${MAX_HEADERS}; names RFC 5322 field names of at most ${MAX_HEADER_NAME} characters, ` +
					`values at most ${MAX_HEADER_VALUE} characters, neither with a line break). Headers Mailroom sets itself are refused: ` +
					'From, To, Cc, Bcc, Reply-To, Subject, Date, Message-ID, In-Reply-To, References, MIME-Version, Content-Type, ' +
					'Content-Transfer-Encoding, Sender, Return-Path, DKIM-Signature',
				examples: [{ 'X-Order-Id': '1042' }],
			}),
		),
		replyHook: Type.Optional(ReplyHookSchema),
		sendToSuppressed: Type.Optional(
			Type.Boolean({
				description:
					'true: send to recipients on your suppression list (GET /api/suppressions) too; without it, a send to one is refused (422)',
			}),
		),
		_serviceKey: Type.Optional(
			Type.String({ description: 'the API key, if not sent in the Service-Key header (as Mailsac clients may send it)' }),
		),
	},
	{
		additionalProperties: false,
		examples: [
			{
				...EXAMPLE_SEND,
				attachments: [
					{
						filename: 'tracking.txt',
						contentType: 'text/plain',
						content: 'T3JkZXIgIzEwNDIKVHJhY2tpbmcgbnVtYmVyOiAxWjk5OUFBMTAxMjM0NTY3ODQK',
					},
				],
			},
		],
	},
);
export type SendRequest = Static<typeof SendRequestSchema>;
