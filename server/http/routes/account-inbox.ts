import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import type { HttpApp, HttpDeps } from '../http-deps';
import { requireAccount } from '../auth';
import { badRequest } from '../errors';
import { errorResponses } from '../schemas';
import { sendJson } from '../render/prerendered-json';
import { SCAN_LIMIT, SEARCH_LIMIT } from '../../store/store';
import { SEARCH_BODY_CHARS } from '../../store/search-plan';
import { budgetOf, type SearchBudget } from '../../store/search-budget';
import { MAX_CONDITIONS, SearchQueryError, parseSearchQuery, type SearchQuery } from '../../mail/search-query';
import { MessageSchema } from '../../schemas/message';
import { DateTime, refTo } from '../../schemas/shared';

const messageList = Type.Array(refTo(MessageSchema));
const term = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 256, description }));
const searchQuery = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: MAX_QUERY_LENGTH, description }));

/** The longest query taken, in characters. */
const MAX_QUERY_LENGTH = 1000;

const SEARCH_DESCRIPTION = `Searches all mail of your account's private addresses and domains (never public mail). The query is a list of
conditions separated by spaces; a message must meet every one (there is no OR):

- \`invoice\`: a word, or \`"order 42"\`: a phrase, found (as a substring, case-insensitively in any script) in the senders'
  addresses or names, the To addresses or names, the inbox, the subject, or the first ${SEARCH_BODY_CHARS / 1024} Ki characters of the text body
  (of an HTML-only message: the text made from its HTML)
- \`from:billing\`, \`to:alice\` (To addresses and names, and the inbox), \`subject:"your receipt"\`: that part only
- \`has:attachment\`, \`is:read\`, \`is:unread\`, \`is:starred\`, \`label:paid\` (a label, exactly)
- \`after:2026-11-01\` (received at or after), \`before:2026-12-01\` (received before): a date (midnight UTC) or an ISO 8601
  time such as \`2026-11-25T09:30:00Z\` (UTC unless it has an offset)
- \`-\` before any condition excludes what it matches: \`invoice -from:noreply\`

In quotes, \`\\"\` is a quote and \`\\\\\` a backslash. A word with a colon after letters is read as an operator: put it in quotes to
look for it (\`"re:"\`). An unknown operator, a malformed value (\`before:yesterday\`), an empty query or more than ${MAX_CONDITIONS}
conditions answer 400. Terms of 3 characters or more are found through a trigram index in all of the mail; a query without one
(only short or excluded terms, states, labels, dates) looks at the newest ${SCAN_LIMIT.toLocaleString('en')} messages (in its dates) of each domain and address.`;

/** Reads across all private addresses and domains of the caller's account. */
export function accountInboxRoutes(app: HttpApp, { accountInbox, config, searches }: HttpDeps): void {
	/**
	 * Runs a search within its budget: --search-timeout from now, and given up when the client closes the connection first
	 * (or has closed it already: while the key was looked up, say), counted in the search metrics.
	 */
	const searched = (reply: FastifyReply, search: (budget: SearchBudget) => Promise<string>): Promise<string> => {
		const gone = new AbortController();
		if (reply.raw.closed) gone.abort();
		else reply.raw.once('close', () => gone.abort());
		return searches.count(() => search(budgetOf(config.searchTimeout, gone.signal)));
	};

	app.get(
		'/api/inbox',
		{
			schema: {
				summary: "All mail of your account's private addresses and domains, newest first, with the unread count",
				querystring: Type.Object({
					limit: Type.Integer({ minimum: 1, maximum: 1000, default: 20 }),
					skip: Type.Integer({ minimum: 0, maximum: 100000, default: 0 }),
					since: Type.Optional(DateTime({ description: 'only messages received after this time' })),
				}),
				response: {
					200: Type.Object({ messages: messageList, unread: Type.Integer(), limit: Type.Integer(), skip: Type.Integer() }),
					...errorResponses(400, 401, 429),
				},
			},
		},
		async (request, reply) => {
			const { limit, skip, since } = request.query;
			const page = await accountInbox.list(requireAccount(request).id, limit, skip, since === undefined ? undefined : Date.parse(since));
			return sendJson(reply, `{"messages":${page.messages},"unread":${page.unread},"limit":${limit},"skip":${skip}}`);
		},
	);

	app.get(
		'/api/inbox-filter',
		{
			schema: {
				summary: `Your account's messages matching every condition given (case-insensitive substrings), newest first, at most ${SEARCH_LIMIT}`,
				querystring: Type.Object({
					andTo: term('a recipient address or the inbox contains this'),
					andFrom: term('a sender address contains this'),
					andSubjectIncludes: term('the subject contains this'),
					andRead: Type.Optional(Type.Boolean({ description: 'true: only read messages; false: only unread ones' })),
				}),
				response: {
					200: Type.Object({ messages: messageList }),
					...errorResponses(400, 401, 429),
				},
			},
		},
		async (request, reply) => {
			const account = requireAccount(request);
			const { andTo, andFrom, andSubjectIncludes, andRead } = request.query;
			if (andTo === undefined && andFrom === undefined && andSubjectIncludes === undefined && andRead === undefined) {
				throw badRequest('Give at least one of andTo, andFrom, andSubjectIncludes, andRead');
			}
			const messages = await searched(reply, (budget) =>
				accountInbox.filter(account.id, { to: andTo, from: andFrom, subject: andSubjectIncludes, read: andRead }, budget),
			);
			return sendJson(reply, `{"messages":${messages}}`);
		},
	);

	app.get(
		'/api/inbox-search',
		{
			schema: {
				summary: `Your account's messages matching a query of words, "phrases" and operators (from:, to:, subject:, label:, after:, before:, has:attachment, is:read, is:unread, is:starred, - to exclude), newest first, at most ${SEARCH_LIMIT}`,
				description: SEARCH_DESCRIPTION,
				querystring: Type.Object({
					query: searchQuery('the query (Mailsac name); see the description for its language'),
					q: searchQuery('short name of query'),
				}),
				response: {
					200: Type.Object({ query: Type.String(), messages: messageList }),
					...errorResponses(400, 401, 429),
				},
			},
		},
		async (request, reply) => {
			const account = requireAccount(request);
			const query = request.query.query ?? request.query.q;
			if (query === undefined) throw badRequest('query (or q) is required', 'query');
			const parsed = parsedQuery(query, request.query.query === undefined ? 'q' : 'query');
			const messages = await searched(reply, (budget) => accountInbox.search(account.id, parsed, budget));
			return sendJson(reply, `{"query":${JSON.stringify(query)},"messages":${messages}}`);
		},
	);
}

/** The query parsed; 400 saying what is wrong (and what the language offers) when it cannot be run, about `field` (query or q). */
function parsedQuery(query: string, field: string): SearchQuery {
	try {
		return parseSearchQuery(query);
	} catch (err) {
		if (err instanceof SearchQueryError) throw badRequest(err.message, field);
		throw err;
	}
}
