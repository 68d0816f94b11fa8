import type { FastifyInstance } from 'fastify';
import type { HttpDeps } from '../http-deps';
import { requireAccount } from '../auth';
import { forbidden } from '../errors';
import { accessibleInbox, messageNotFound } from '../inbox-access';
import { emailParam } from '../params';
import { emailAndMessageParams, emailParams, errorResponses } from '../schemas';
import { sendJson } from '../render/prerendered-json';
import { numberedTextBody } from '../render/stored-body';

export async function messageRoutes(app: FastifyInstance, { addresses, messages, deletion }: HttpDeps): Promise<void> {
	app.get<{ Params: { email: string }; Querystring: { limit: number; until?: string } }>(
		'/api/addresses/:email/messages',
		{
			schema: {
				summary: 'List the messages of an inbox, newest first',
				params: emailParams,
				querystring: {
					type: 'object',
					properties: {
						limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
						until: { type: 'string', format: 'date-time', description: 'only messages received before this time' },
					},
				},
				response: { 200: { type: 'array', items: { $ref: 'Message#' } }, ...errorResponses(400, 401, 403, 429) },
			},
		},
		async (request, reply) => {
			const { address } = accessibleInbox(request, addresses, request.params.email);
			const until = request.query.until === undefined ? undefined : Date.parse(request.query.until);
			return sendJson(reply, messages.listInboxJson(address, request.query.limit, until));
		},
	);

	app.get<{ Params: { email: string; messageId: string } }>(
		'/api/text/:email/:messageId',
		{
			schema: {
				summary: 'The plain text of a message, links numbered and listed at the end',
				params: emailAndMessageParams,
				produces: ['text/plain'],
				response: { 200: { type: 'string' }, ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request, reply) => {
			const { address } = accessibleInbox(request, addresses, request.params.email);
			const content = messages.content(address, request.params.messageId);
			if (!content) throw messageNotFound(address, request.params.messageId);
			const { length, body } = await numberedTextBody(content);
			return reply.type('text/plain; charset=utf-8').header('content-length', length).send(body);
		},
	);

	app.get<{ Params: { email: string } }>(
		'/api/addresses/:email/message-count',
		{
			schema: {
				summary: 'How many messages an inbox holds',
				params: emailParams,
				response: {
					200: { type: 'object', properties: { count: { type: 'integer' }, inbox: { type: 'string' } }, required: ['count', 'inbox'] },
					...errorResponses(400, 401, 403, 429),
				},
			},
		},
		async (request) => {
			const { address } = accessibleInbox(request, addresses, request.params.email);
			return { count: messages.count(address), inbox: address };
		},
	);

	app.get<{ Params: { email: string; messageId: string } }>(
		'/api/addresses/:email/messages/:messageId',
		{
			schema: {
				summary: 'One message record',
				params: emailAndMessageParams,
				response: { 200: { $ref: 'Message#' }, ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request) => {
			const { address } = accessibleInbox(request, addresses, request.params.email);
			const record = messages.get(address, request.params.messageId);
			if (!record) throw messageNotFound(address, request.params.messageId);
			return record;
		},
	);

	app.delete<{ Params: { email: string; messageId: string } }>(
		'/api/addresses/:email/messages/:messageId',
		{
			schema: {
				summary: 'Delete one message with its raw source and attachments (starred too; no undo). Public mail may be deleted without a key, as with Mailsac',
				params: emailAndMessageParams,
				response: {
					200: {
						type: 'object',
						properties: { _id: { type: 'string' }, inbox: { type: 'string' }, message: { type: 'string' } },
						required: ['_id', 'inbox', 'message'],
					},
					...errorResponses(400, 401, 403, 404, 429),
				},
			},
		},
		async (request) => {
			const { address } = accessibleInbox(request, addresses, request.params.email);
			if (!deletion.deleteMessage(address, request.params.messageId)) throw messageNotFound(address, request.params.messageId);
			return { _id: request.params.messageId, inbox: address, message: 'Message was deleted.' };
		},
	);

	app.delete<{ Params: { email: string } }>(
		'/api/addresses/:email/messages',
		{
			schema: {
				summary: 'Delete every message of a private inbox of yours except the starred ones',
				params: emailParams,
				response: { 204: { type: 'null', description: 'deleted' }, ...errorResponses(400, 401, 403, 429) },
			},
		},
		async (request, reply) => {
			const email = emailParam(request.params.email);
			const account = requireAccount(request);
			// As with Mailsac, only an inbox the caller owns can be emptied at once; public mail goes one message at a time.
			if (addresses.ownerOfInbox(email.address, email.domain) !== account.id) {
				throw forbidden(`${email.address} is not a private address of your account`);
			}
			deletion.deleteInbox(email.address);
			return reply.code(204).send();
		},
	);
}
