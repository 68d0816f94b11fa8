/**
 * The error answers of the API reference. Routes declare the errors of their own code (errorResponses: 403 not yours, 404,
 * 409, ...); the ones every route of a kind can give come from the server's hooks and are added here, to the document only,
 * so Fastify's serialization of the answers stays as the routes declare it. Every error is `{ error, message }` (Error).
 */
import { STATUS_CODES } from 'node:http';
import type { RouteOptions } from 'fastify';
import { errorResponses } from './schemas';
import { BODY_LIMIT, bodyTooLarge } from './body-limit';

/** What each error status means in this API, for the reference. */
const MEANINGS: Record<number, string> = {
	400: 'Invalid input: the message names the parameter or field at fault and what it takes (also: Service-Key and Mailsac-Key holding different keys)',
	401: 'No API key where one is needed, or a key that is unknown or revoked',
	402: 'Not enough outgoing-message credits for every recipient: nothing was sent or charged',
	403: 'Not yours: a private address, domain or sender address of another account',
	404: 'Not found (or not in your account)',
	408: 'No matching message arrived within the timeout',
	409: 'Conflicts with the current state: the message says why',
	413: 'The request body, or the message it composes, is larger than the server takes',
	422: 'A recipient cannot be reached: it is not in a local domain and no SMTP relay is configured',
	429: 'Rate limit reached (per API key, else per IP address): retry after the Retry-After header’s seconds',
	503: 'The database does not answer, the server is shutting down (or too busy), or a search took longer than --search-timeout: retry shortly, or narrow the search',
};

/** Documentation-only schema fields the server reads (Fastify's own types do not know them). */
type DocumentedSchema = { security?: unknown[]; body?: unknown; response?: Record<string, unknown> };

/**
 * The route's schema with the errors its kind of route can give that it does not declare itself:
 * - 400 and 401 on every route that takes a key (registerAuth: two different keys, an unknown or revoked key);
 * - 413 on every route with a body (its body limit);
 * - 429 on every rate-limited route (@fastify/rate-limit);
 * - 503 on every /api/ route (each reads the store, and StoreUnavailableError answers 503).
 * The health checks (no key, no rate limit) keep their own answers.
 */
export function withCommonErrors<S>(schema: S, url: string, route: Pick<RouteOptions, 'config'>): S {
	const documented = schema as DocumentedSchema;
	const codes: number[] = [];
	const takesKey = !(Array.isArray(documented.security) && documented.security.length === 0);
	if (takesKey) codes.push(400, 401);
	if (documented.body) codes.push(413);
	if ((route.config as { rateLimit?: unknown } | undefined)?.rateLimit !== false) codes.push(429);
	if (url.startsWith('/api/')) codes.push(503);
	const missing = codes.filter((code) => !(String(code) in (documented.response ?? {})));
	if (missing.length === 0) return schema;
	// New objects: the route's own schema (which Fastify serializes with) is left as it is.
	return { ...schema, response: { ...errorResponses(...missing), ...documented.response } };
}

const ERROR_REF = '#/components/schemas/Error';

/** An answer in the document, as far as this module reads and completes it. */
interface DocumentedResponse {
	description?: string;
	content?: Record<string, { schema?: { $ref?: string }; example?: unknown }>;
}

/**
 * Replaces @fastify/swagger's "Default Response" with what each status means, and gives each error answer an example of
 * the message it would carry for this path. Errors are JSON whatever the route produces when it succeeds (@fastify/swagger
 * lists them under the route's `produces` types: text/html, message/rfc822...).
 */
export function describeResponses(path: string, responses: Record<string, DocumentedResponse>): void {
	for (const [status, response] of Object.entries(responses)) {
		const code = Number(status);
		const isError = Object.values(response.content ?? {}).some((media) => media.schema?.$ref === ERROR_REF);
		if (response.description === 'Default Response') response.description = (isError && MEANINGS[code]) || STATUS_CODES[code] || status;
		if (!isError) continue;
		const example = { error: STATUS_CODES[code] ?? 'Error', message: exampleMessage(code, path) };
		response.content = { 'application/json': { schema: { $ref: ERROR_REF }, example } };
	}
}

/** A message the API really answers with this status on this path (the address, domain and ids made up). */
function exampleMessage(code: number, path: string): string {
	const has = (param: string) => path.includes(`{${param}}`);
	switch (code) {
		case 400:
			if (has('email')) return '"alice@" is not an email address';
			if (has('domain')) return '"example..com" is not a domain name';
			if (path === '/api/outgoing-messages') return 'to must name at least one recipient';
			return 'The Service-Key and Mailsac-Key headers hold different keys: send one key';
		case 401:
			return 'This operation needs an API key in the Service-Key (or Mailsac-Key) header';
		case 402:
			return (
				'You must purchase more outgoing message credits before you can send: this message needs 1 (one per recipient) and ' +
				'account "Acme QA" has 0. An administrator adds credits with: mailroom credits add "Acme QA" <n>'
			);
		case 403:
			if (has('domain')) return 'example.com is owned by another account';
			if (path === '/api/outgoing-messages')
				return 'alice@example.com is not an address of your account: send from one of its private addresses or an address in one of its domains';
			return 'alice@example.com is a private address of another account';
		case 404:
			if (has('messageId')) return 'No message VP7ZCk8ELgF-xcBQ in alice@example.com';
			if (has('domain')) return 'example.com is not a custom domain; claim it with POST /api/domains/example.com';
			if (has('email')) return 'alice@example.com is not reserved; reserve it with POST /api/addresses/alice@example.com';
			if (has('keyId')) return 'No API key VP7ZCk8GVncmCJ3p in this account';
			if (has('attemptId')) return 'No webhook attempt VP7ZCk8GW-QsH2ci';
			if (has('deliveryId')) return 'No webhook delivery VP7ZCk8GbBFSFz9o';
			if (path === '/api/outgoing-messages')
				return 'No message VP7ZCk8ELgF-xcBQ in your inboxes for inReplyTo (a reply answers mail of your private addresses and domains, by its _id)';
			return 'Not found';
		case 408:
			return 'No message subject "Your verification code" arrived at alice@example.com within 30 s';
		case 409:
			if (has('keyId')) return 'This request is made with that key: revoke it with another key of the account';
			if (has('deliveryId')) return 'Delivery VP7ZCk8GbBFSFz9o is delivered; only a failed or refused one can be redelivered';
			return 'alice@example.com has 25 webhook subscriptions already: delete one first';
		case 413:
			if (path === '/api/outgoing-messages')
				return 'The composed message is 26214613 bytes, more than the maximum message size of 26214400 bytes';
			return bodyTooLarge(BODY_LIMIT);
		case 422:
			return 'No SMTP relay is configured (MAILROOM_RELAY_URL), so mail can go only to local domains; not local: bob@example.org';
		case 429:
			return 'Rate limit of 300 requests per minute reached; retry in 1 minute';
		case 503:
			if (path === '/api/inbox-search' || path === '/api/inbox-filter')
				return 'The search took longer than 5 s, the most one may take (--search-timeout)';
			return 'The database is unavailable; try again shortly';
		default:
			return STATUS_CODES[code] ?? 'Error';
	}
}
