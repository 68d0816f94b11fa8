/** Waiting for mail: the query of GET /api/addresses/:email/wait-for-message, and what it matches. */
import Type, { type Static } from 'typebox';
import { DateTime } from './shared';

/** The longest one request may wait (ms): a client that must wait longer asks again. */
export const MAX_WAIT_MS = 300_000;
export const DEFAULT_WAIT_MS = 30_000;

const filterPart = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 256, description }));

export const WaitForQuerySchema = Type.Object(
	{
		from: filterPart("a sender's address or display name contains this (case-insensitive)"),
		subject: filterPart('the subject contains this (case-insensitive)'),
		text: filterPart('the plain-text body contains this (case-insensitive); for an HTML-only message, the text made from its HTML'),
		since: Type.Optional(
			DateTime({
				description:
					'only a message received at or after this time (ISO 8601 with a time zone, e.g. 2026-05-01T12:00:00Z); default: when the request arrived, so only new mail answers',
			}),
		),
		timeout: Type.Integer({
			minimum: 0,
			maximum: MAX_WAIT_MS,
			default: DEFAULT_WAIT_MS,
			description: `how long to wait, in ms (at most ${MAX_WAIT_MS}, 5 minutes); 0: only look at the mail already stored`,
		}),
	},
	// A misspelt filter would otherwise be ignored, and the first message of any kind would answer.
	{ additionalProperties: false },
);
export type WaitForQuery = Static<typeof WaitForQuerySchema>;

/** The filters a waited-for message must pass: every part given must match. */
export type MessageFilter = Pick<WaitForQuery, 'from' | 'subject' | 'text'>;
