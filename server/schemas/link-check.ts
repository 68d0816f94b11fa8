/** What checking a message's links found (GET /api/addresses/:email/messages/:messageId/link-check). */
import Type, { type Static } from 'typebox';
import { DateTime, Nullable } from './shared';

export const LinkStatusSchema = Type.Enum(['ok', 'broken', 'error', 'refused', 'unchecked'], {
	description:
		'ok: answered 2xx (after redirects); broken: answered 4xx or 5xx; error: no answer (timeout, DNS, connection); ' +
		'refused: the SSRF policy does not let the server go there; unchecked: not an http(s) link, or beyond the first 50',
});
export type LinkStatus = Static<typeof LinkStatusSchema>;

export const LinkResultSchema = Type.Object({
	url: Type.String({ description: 'the link as the message has it' }),
	status: LinkStatusSchema,
	statusCode: Nullable(Type.Integer(), { description: 'the HTTP status of the last answer; null when none came' }),
	error: Nullable(Type.String(), { description: 'why it is not ok, in words' }),
	redirects: Type.Array(Type.String(), { description: 'each URL a redirect led to, in order' }),
});
export type LinkResult = Static<typeof LinkResultSchema>;

export const LinkCheckSchema = Type.Object(
	{
		_id: Type.String({ description: 'the message id' }),
		checked: DateTime({ description: 'when the links were checked (answers are kept for a minute)' }),
		links: Type.Array(LinkResultSchema),
	},
	{ $id: 'LinkCheck', description: "Whether each of a message's links answers" },
);
export type LinkCheck = Static<typeof LinkCheckSchema>;
