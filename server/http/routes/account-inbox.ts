import Type from 'typebox';
import type { HttpApp, HttpDeps } from '../http-deps';
import { requireAccount } from '../auth';
import { badRequest } from '../errors';
import { errorResponses } from '../schemas';
import { sendJson } from '../render/prerendered-json';
import { SEARCH_LIMIT } from '../../store/store';
import { MessageSchema } from '../../schemas/message';
import { DateTime, refTo } from '../../schemas/shared';

const messageList = Type.Array(refTo(MessageSchema));
const term = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 256, description }));

/** Reads across all private addresses and domains of the caller's account. */
export function accountInboxRoutes(app: HttpApp, { accountInbox }: HttpDeps): void {
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
			const messages = await accountInbox.filter(account.id, { to: andTo, from: andFrom, subject: andSubjectIncludes, read: andRead });
			return sendJson(reply, `{"messages":${messages}}`);
		},
	);

	app.get(
		'/api/inbox-search',
		{
			schema: {
				summary: `Your account's messages whose to, from or subject contains the query (case-insensitive), newest first, at most ${SEARCH_LIMIT}`,
				querystring: Type.Object({ query: term('text to look for (Mailsac name)'), q: term('short name of query') }),
				response: {
					200: Type.Object({ query: Type.String(), messages: messageList }),
					...errorResponses(400, 401, 429),
				},
			},
		},
		async (request, reply) => {
			const account = requireAccount(request);
			const query = request.query.query ?? request.query.q;
			if (query === undefined) throw badRequest('querystring must have query (or q)');
			return sendJson(reply, `{"query":${JSON.stringify(query)},"messages":${await accountInbox.search(account.id, query)}}`);
		},
	);
}
