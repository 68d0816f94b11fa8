import { addressPath } from '../shared/transport';

/** Where the API lists an inbox's messages. */
export const inboxPath = (email: string) => `/api/addresses/${addressPath(email)}/messages`;

/** Where the API serves one message of an inbox (its record; its parts below it). */
export const messagePath = (email: string, messageId: string) => `${inboxPath(email)}/${encodeURIComponent(messageId.trim())}`;

/** A route of the form /api/<kind>/<email>/<messageId>: the text, raw source and HTML bodies of a message. */
export const messageContentPath = (kind: 'text' | 'raw' | 'body' | 'dirty', email: string, messageId: string) =>
	`/api/${kind}/${addressPath(email)}/${encodeURIComponent(messageId.trim())}`;
