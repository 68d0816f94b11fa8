import Type from 'typebox';
import type { HttpApp, HttpDeps } from '../http-deps';
import { requireAccount } from '../auth';
import { forbidden } from '../errors';
import { accessibleInbox, messageNotFound } from '../inbox-access';
import { emailParam } from '../params';
import { EmailParams, MessageParams, NoContent, RawBody, errorResponses } from '../schemas';
import { MessageSchema } from '../../schemas/message';
import { DateTime, refTo } from '../../schemas/shared';
import { sendJson } from '../render/prerendered-json';
import { numberedTextBody } from '../render/stored-body';

export function messageRoutes(app: HttpApp, { addresses, messages, deletion }: HttpDeps): void {
	app.get(
		'/api/addresses/:email/messages',
		{
			schema: {
				summary: 'List the messages of an inbox, newest first',
				params: EmailParams,
				querystring: Type.Object({
					limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
					until: Type.Optional(DateTime({ description: 'only messages received before this time' })),
				}),
				response: { 200: Type.Array(refTo(MessageSchema)), ...errorResponses(400, 401, 403, 429) },
			},
		},
		async (request, reply) => {
			const { address } = await accessibleInbox(request, addresses, request.params.email);
			const until = request.query.until === undefined ? undefined : Date.parse(request.query.until);
			return sendJson(reply, await messages.listInboxJson(address, request.query.limit, until));
		},
	);

	app.get(
		'/api/text/:email/:messageId',
		{
			schema: {
				summary: 'The plain text of a message, links numbered and listed at the end',
				params: MessageParams,
				produces: ['text/plain'],
				response: { 200: RawBody(), ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request, reply) => {
			const { address } = await accessibleInbox(request, addresses, request.params.email);
			const content = await messages.content(address, request.params.messageId);
			if (!content) throw messageNotFound(address, request.params.messageId);
			const { length, body } = await numberedTextBody(content);
			return reply.type('text/plain; charset=utf-8').header('content-length', length).send(body);
		},
	);

	app.get(
		'/api/addresses/:email/message-count',
		{
			schema: {
				summary: 'How many messages an inbox holds',
				params: EmailParams,
				response: { 200: Type.Object({ count: Type.Integer(), inbox: Type.String() }), ...errorResponses(400, 401, 403, 429) },
			},
		},
		async (request) => {
			const { address } = await accessibleInbox(request, addresses, request.params.email);
			return { count: await messages.count(address), inbox: address };
		},
	);

	app.get(
		'/api/addresses/:email/messages/:messageId',
		{
			schema: {
				summary: 'One message record',
				params: MessageParams,
				response: { 200: refTo(MessageSchema), ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request) => {
			const { address } = await accessibleInbox(request, addresses, request.params.email);
			const record = await messages.get(address, request.params.messageId);
			if (!record) throw messageNotFound(address, request.params.messageId);
			return record;
		},
	);

	app.delete(
		'/api/addresses/:email/messages/:messageId',
		{
			schema: {
				summary:
					'Delete one message with its raw source and attachments (starred too; no undo). Public mail may be deleted without a key, as with Mailsac',
				params: MessageParams,
				response: {
					200: Type.Object({ _id: Type.String(), inbox: Type.String(), message: Type.String() }),
					...errorResponses(400, 401, 403, 404, 429),
				},
			},
		},
		async (request) => {
			const { address } = await accessibleInbox(request, addresses, request.params.email);
			if (!(await deletion.deleteMessage(address, request.params.messageId))) throw messageNotFound(address, request.params.messageId);
			return { _id: request.params.messageId, inbox: address, message: 'Message was deleted.' };
		},
	);

	app.delete(
		'/api/addresses/:email/messages',
		{
			schema: {
				summary: 'Delete every message of a private inbox of yours except the starred ones',
				params: EmailParams,
				response: { 204: NoContent('deleted'), ...errorResponses(400, 401, 403, 429) },
			},
		},
		async (request, reply) => {
			const email = emailParam(request.params.email);
			const account = requireAccount(request);
			// As with Mailsac, only an inbox the caller owns can be emptied at once; public mail goes one message at a time.
			if ((await addresses.ownerOfInbox(email.address, email.domain)) !== account.id) {
				throw forbidden(`${email.address} is not a private address of your account`);
			}
			await deletion.deleteInbox(email.address);
			return reply.code(204).send();
		},
	);
}
