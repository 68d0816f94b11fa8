import type { FastifyInstance } from 'fastify';
import type { HttpDeps } from '../http-deps';
import { authorizeInbox } from '../auth';
import { notFound } from '../errors';
import { emailParam } from '../params';
import { emailAndMessageParams, emailParams, errorResponses } from '../schemas';
import { numberLinks } from '../../parse/numbered-links';

export async function messageRoutes(app: FastifyInstance, { addresses, messages }: HttpDeps): Promise<void> {
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
		async (request) => {
			const email = emailParam(request.params.email);
			authorizeInbox(request, addresses, email.address, email.domain);
			const until = request.query.until === undefined ? undefined : Date.parse(request.query.until);
			return messages.listInbox(email.address, request.query.limit, until);
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
			const email = emailParam(request.params.email);
			authorizeInbox(request, addresses, email.address, email.domain);
			const content = messages.content(email.address, request.params.messageId);
			if (!content) throw notFound(`No message ${request.params.messageId} in ${email.address}`);
			return reply.type('text/plain; charset=utf-8').send(numberLinks(content.text));
		},
	);
}
