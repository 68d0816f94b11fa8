import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { Account } from '../../store/store';
import type { HttpApp, HttpDeps } from '../http-deps';
import { requireAccount } from '../auth';
import { HttpError, badRequest, notFound, unauthorized } from '../errors';
import { IdParam, errorResponses } from '../schemas';
import { SendError } from '../../outbound/send-error';
import { BODY_LIMIT } from '../body-limit';
import { assertDeliverable } from '../webhook-targets';
import {
	MAX_ATTACHMENTS,
	MAX_HEADERS,
	MAX_RECIPIENTS,
	OutgoingSchema,
	SendRequestSchema,
	SentSchema,
	type SendRequest,
} from '../../schemas/outgoing';
import { refTo } from '../../schemas/shared';

/** The account of the header key, or of `_serviceKey` in the body (this one operation allows both); they must agree. */
async function sendingAccount(request: FastifyRequest & { body: SendRequest }, deps: HttpDeps): Promise<Account> {
	const bodyKey = request.body._serviceKey;
	if (!bodyKey) return requireAccount(request);
	const account = await deps.accounts.forKey(bodyKey);
	if (!account) throw unauthorized('The API key in _serviceKey is unknown or revoked');
	if (request.account && request.account.id !== account.id)
		throw badRequest('The API key header (Service-Key or Mailsac-Key) and _serviceKey belong to different accounts', '_serviceKey');
	return account;
}

/**
 * The largest send body read: room for a message of --max-message-size however its JSON is written (base64 attachments
 * take 4/3 of their bytes, JSON escapes up to twice what the composer writes), plus the usual JSON body limit.
 */
export const sendBodyLimit = (maxMessageSize: number) => 2 * maxMessageSize + BODY_LIMIT;

export function outgoingRoutes(app: HttpApp, deps: HttpDeps): void {
	app.post(
		'/api/outgoing-messages',
		{
			bodyLimit: sendBodyLimit(deps.config.maxMessageSize),
			schema: {
				summary: `Send a message to up to ${MAX_RECIPIENTS} recipients (to, cc and bcc together); one outgoing-message credit per recipient`,
				description:
					'Recipients in local domains get the message in their inbox here (webhooks and websockets fire); others get it through the SMTP relay. ' +
					'Every distinct recipient costs one credit, all charged at once or none (402). Bcc recipients get the message and no copy names them. ' +
					`At most ${MAX_ATTACHMENTS} attachments and ${MAX_HEADERS} extra headers; the composed message is held to --max-message-size (413). ` +
					'With inReplyTo, the message answers one of your received messages (In-Reply-To, References; to and subject default from it). ' +
					'With replyHook, the first reply it gets is POSTed to replyHook.url once, as a signed webhook delivery (retried, in Recent Activity). ' +
					'The API key may be sent in the Service-Key header or in the body as _serviceKey.',
				body: SendRequestSchema,
				response: { 200: SentSchema, ...errorResponses(400, 401, 402, 403, 404, 413, 422, 429) },
			},
		},
		async (request) => {
			const account = await sendingAccount(request, deps);
			await assertDeliverable(deps.webhooks.targets, account, { 'replyHook.url': request.body.replyHook?.url });
			try {
				const { record, creditsRemaining, warnings } = await deps.sender.send(account, request.body, {
					ip: request.ip,
					via: request.socket.localAddress ?? '',
				});
				return { ...record, id: record._id, creditsRemaining, warnings };
			} catch (err) {
				if (err instanceof SendError) throw new HttpError(err.statusCode, err.message, err.field);
				throw err;
			}
		},
	);

	app.get(
		'/api/outgoing-messages',
		{
			schema: {
				summary: "The account's sent mail, newest first, with delivery status",
				querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 1000, default: 20 }) }),
				response: { 200: Type.Array(refTo(OutgoingSchema)), ...errorResponses(400, 401, 429) },
			},
		},
		(request) => deps.outgoing.list(requireAccount(request).id, request.query.limit),
	);

	app.get(
		'/api/outgoing-messages/:id',
		{
			schema: {
				summary: 'One of your sent messages, with the delivery status of each recipient',
				params: Type.Object({ id: IdParam('sent message') }),
				response: { 200: refTo(OutgoingSchema), ...errorResponses(400, 401, 404, 429) },
			},
		},
		async (request) => {
			const record = await deps.outgoing.find(requireAccount(request).id, request.params.id);
			// Another account's message answers as none does: ids of others' mail reveal nothing.
			if (!record) throw notFound(`Your account has no sent message ${request.params.id}`);
			return record;
		},
	);
}
