/** A conversation as GET /api/threads/{threadId} shows it: its received and sent messages, oldest first. */
import Type, { type Static } from 'typebox';
import { MessageSchema } from './message';
import { OutgoingSchema } from './outgoing';
import { Nullable, expects } from './shared';

/** Most messages one page of a thread holds. */
export const MAX_THREAD_PAGE = 1000;

/** Where the next page of a thread starts: `next` of the page before (the time, kind and place of its last message). */
export const THREAD_CURSOR_PATTERN = '^[0-9]{1,15}\\.[rs][0-9]{1,15}$';

/** The example a shared schema gives the API reference. */
const exampleOf = (schema: object) => (schema as { examples: object[] }).examples[0];

const ReceivedInThreadSchema = Type.Object(
	{
		type: Type.Literal('received', { description: 'a received message: its record, as GET /api/addresses/{email}/messages/{messageId}' }),
		...MessageSchema.properties,
	},
	{ description: 'A received message of the thread' },
);

const SentInThreadSchema = Type.Object(
	{
		type: Type.Literal('sent', { description: 'a sent message (or forward): its record, as GET /api/outgoing-messages lists it' }),
		...OutgoingSchema.properties,
	},
	{ description: 'A sent message of the thread' },
);

export const ThreadSchema = Type.Object(
	{
		threadId: Type.String(),
		messages: Type.Array(Type.Union([ReceivedInThreadSchema, SentInThreadSchema]), {
			description:
				'oldest first (received messages by received, sent ones by sent), each with its type; only those the key may read: ' +
				'received mail of public inboxes and of your account, your sent mail',
		}),
		next: Nullable(Type.String({ pattern: THREAD_CURSOR_PATTERN }), {
			description: 'pass it as `after` for the next page; null on the last page',
		}),
	},
	{
		$id: 'Thread',
		description: 'A conversation: the messages that answer one another (In-Reply-To, References), received and sent',
		examples: [
			{
				threadId: '5be0c4b2a7e94f1d83c6a0e2',
				messages: [
					{ type: 'received', ...exampleOf(MessageSchema) },
					{
						type: 'sent',
						...exampleOf(OutgoingSchema),
						_id: 'VP7ZCk8GVncmCJ3p',
						threadId: '5be0c4b2a7e94f1d83c6a0e2',
						from: 'alice@example.com',
						to: ['billing@shop.example'],
						subject: 'Re: Your receipt for order #1042',
						inReplyTo: 'VP7ZCk8ELgF-xcBQ',
						sent: '2026-11-28T10:02:31.220Z',
						recipients: [{ address: 'billing@shop.example', field: 'to', route: 'relay', status: 'delivered', error: null, note: null }],
					},
				],
				next: null,
			},
		],
	},
);
export type Thread = Static<typeof ThreadSchema>;

/** The query of GET /api/threads/{threadId}: a page of at most `limit` messages, after `after`. */
export const ThreadQuerySchema = Type.Object({
	limit: Type.Integer({ minimum: 1, maximum: MAX_THREAD_PAGE, default: 100 }),
	after: Type.Optional(
		Type.String({
			pattern: THREAD_CURSOR_PATTERN,
			description: 'the `next` of the page before',
			...expects('the next of an earlier page of this thread'),
		}),
	),
});
