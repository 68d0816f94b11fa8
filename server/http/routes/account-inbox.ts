import type { FastifyInstance } from 'fastify';
import type { HttpDeps } from '../http-deps';
import { requireAccount } from '../auth';
import { badRequest } from '../errors';
import { errorResponses } from '../schemas';
import { sendJson } from '../render/prerendered-json';
import { SEARCH_LIMIT } from '../../store/account-inbox';

const messageList = { type: 'array', items: { $ref: 'Message#' } } as const;
const term = (description: string) => ({ type: 'string', minLength: 1, maxLength: 256, description }) as const;

/** Reads across all private addresses and domains of the caller's account. */
export async function accountInboxRoutes(app: FastifyInstance, { accountInbox }: HttpDeps): Promise<void> {
	app.get<{ Querystring: { limit: number; skip: number; since?: string } }>(
		'/api/inbox',
		{
			schema: {
				summary: "All mail of your account's private addresses and domains, newest first, with the unread count",
				querystring: {
					type: 'object',
					properties: {
						limit: { type: 'integer', minimum: 1, maximum: 1000, default: 20 },
						skip: { type: 'integer', minimum: 0, maximum: 100000, default: 0 },
						since: { type: 'string', format: 'date-time', description: 'only messages received after this time' },
					},
				},
				response: {
					200: {
						type: 'object',
						properties: { messages: messageList, unread: { type: 'integer' }, limit: { type: 'integer' }, skip: { type: 'integer' } },
						required: ['messages', 'unread', 'limit', 'skip'],
					},
					...errorResponses(400, 401, 429),
				},
			},
		},
		async (request, reply) => {
			const { limit, skip, since } = request.query;
			const page = accountInbox.list(requireAccount(request).id, limit, skip, since === undefined ? undefined : Date.parse(since));
			return sendJson(reply, `{"messages":${page.messages},"unread":${page.unread},"limit":${limit},"skip":${skip}}`);
		},
	);

	app.get<{ Querystring: { andTo?: string; andFrom?: string; andSubjectIncludes?: string; andRead?: boolean } }>(
		'/api/inbox-filter',
		{
			schema: {
				summary: `Your account's messages matching every condition given (case-insensitive substrings), newest first, at most ${SEARCH_LIMIT}`,
				querystring: {
					type: 'object',
					properties: {
						andTo: term('a recipient address or the inbox contains this'),
						andFrom: term('a sender address contains this'),
						andSubjectIncludes: term('the subject contains this'),
						andRead: { type: 'boolean', description: 'true: only read messages; false: only unread ones' },
					},
				},
				response: {
					200: { type: 'object', properties: { messages: messageList }, required: ['messages'] },
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
			const messages = accountInbox.filter(account.id, { to: andTo, from: andFrom, subject: andSubjectIncludes, read: andRead });
			return sendJson(reply, `{"messages":${messages}}`);
		},
	);

	app.get<{ Querystring: { query?: string; q?: string } }>(
		'/api/inbox-search',
		{
			schema: {
				summary: `Your account's messages whose to, from or subject contains the query (case-insensitive), newest first, at most ${SEARCH_LIMIT}`,
				querystring: {
					type: 'object',
					properties: { query: term('text to look for (Mailsac name)'), q: term('short name of query') },
				},
				response: {
					200: { type: 'object', properties: { query: { type: 'string' }, messages: messageList }, required: ['query', 'messages'] },
					...errorResponses(400, 401, 429),
				},
			},
		},
		async (request, reply) => {
			const account = requireAccount(request);
			const query = request.query.query ?? request.query.q;
			if (query === undefined) throw badRequest('querystring must have query (or q)');
			return sendJson(reply, `{"query":${JSON.stringify(query)},"messages":${accountInbox.search(account.id, query)}}`);
		},
	);
}
