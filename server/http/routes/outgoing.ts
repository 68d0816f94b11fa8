import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Account } from '../../store/accounts';
import type { HttpDeps } from '../http-deps';
import { requireAccount } from '../auth';
import { HttpError, badRequest, unauthorized } from '../errors';
import { errorResponses } from '../schemas';
import { MAX_RECIPIENTS, SendError, type SendRequest } from '../../outbound/sender';

interface SendBody extends SendRequest {
	_serviceKey?: string;
}

const status = { type: 'string', enum: ['queued', 'delivered', 'failed'] } as const;

const outgoingProperties = {
	_id: { type: 'string' },
	from: { type: 'string', description: 'the sender address' },
	to: { type: 'array', items: { type: 'string' }, description: 'the recipient addresses' },
	subject: { type: 'string' },
	status: { ...status, description: 'queued while any recipient is pending; delivered when all were; failed when any failed for good' },
	sent: { type: 'string', format: 'date-time' },
	lastError: { type: ['string', 'null'], description: "the last delivery failure (the relay's reply when it gave one)" },
	attempts: { type: 'integer', description: 'delivery attempts made so far' },
	recipients: {
		type: 'array',
		items: {
			type: 'object',
			properties: {
				address: { type: 'string' },
				route: { type: 'string', enum: ['local', 'relay'], description: 'local: stored in an inbox here; relay: sent through the SMTP relay' },
				status,
				error: { type: ['string', 'null'] },
			},
			required: ['address', 'route', 'status', 'error'],
		},
	},
} as const;

const outgoingRequired = ['_id', 'from', 'to', 'subject', 'status', 'sent', 'lastError', 'attempts', 'recipients'] as const;

/** The account of the header key, or of `_serviceKey` in the body (this one operation allows both); they must agree. */
function sendingAccount(request: FastifyRequest<{ Body: SendBody }>, deps: HttpDeps): Account {
	const bodyKey = request.body._serviceKey;
	if (!bodyKey) return requireAccount(request);
	const account = deps.accounts.forKey(bodyKey);
	if (!account) throw unauthorized('The API key in _serviceKey is unknown or revoked');
	if (request.account && request.account.id !== account.id) throw badRequest('The Service-Key header and body/_serviceKey belong to different accounts');
	return account;
}

export async function outgoingRoutes(app: FastifyInstance, deps: HttpDeps): Promise<void> {
	app.post<{ Body: SendBody }>(
		'/api/outgoing-messages',
		{
			schema: {
				summary: `Send a message to up to ${MAX_RECIPIENTS} recipients; one outgoing-message credit per recipient`,
				description:
					'Recipients in local domains get the message in their inbox here (webhooks and websockets fire); others get it through the SMTP relay. ' +
					'The API key may be sent in the Service-Key header or in body/_serviceKey.',
				body: {
					type: 'object',
					properties: {
						_serviceKey: { type: 'string', description: 'the API key, if not sent in the Service-Key header' },
						to: {
							anyOf: [
								{ type: 'string', minLength: 1, maxLength: MAX_RECIPIENTS * 320 },
								{ type: 'array', items: { type: 'string', maxLength: 320 }, minItems: 1, maxItems: MAX_RECIPIENTS },
							],
							description: `one address, a comma-separated list or an array (at most ${MAX_RECIPIENTS}); "Name <address>" allowed`,
						},
						from: { type: 'string', maxLength: 320, description: 'one of your private addresses, or an address in one of your domains' },
						subject: { type: 'string', maxLength: 998, description: 'recommended: mail without a subject is often classed as spam' },
						text: { type: 'string', description: 'plain-text body (text or html is required)' },
						html: { type: 'string', description: 'HTML body' },
					},
					required: ['to', 'from'],
				},
				response: {
					200: {
						type: 'object',
						properties: {
							...outgoingProperties,
							id: { type: 'string', description: 'the same as _id (the name Mailsac used)' },
							creditsRemaining: { type: 'integer', description: 'outgoing-message credits left after this send' },
							warnings: { type: 'array', items: { type: 'string' } },
						},
						required: [...outgoingRequired, 'id', 'creditsRemaining', 'warnings'],
					},
					...errorResponses(400, 401, 402, 403, 413, 422, 429),
				},
			},
		},
		async (request) => {
			const account = sendingAccount(request, deps);
			try {
				const { record, creditsRemaining, warnings } = await deps.sender.send(account, request.body, {
					ip: request.ip,
					via: request.socket.localAddress ?? '',
				});
				return { ...record, id: record._id, creditsRemaining, warnings };
			} catch (err) {
				if (err instanceof SendError) throw new HttpError(err.statusCode, err.message);
				throw err;
			}
		},
	);

	app.get<{ Querystring: { limit: number } }>(
		'/api/outgoing-messages',
		{
			schema: {
				summary: "The account's sent mail, newest first, with delivery status",
				querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 1000, default: 20 } } },
				response: {
					200: { type: 'array', items: { type: 'object', properties: outgoingProperties, required: outgoingRequired } },
					...errorResponses(400, 401, 429),
				},
			},
		},
		async (request) => deps.outgoing.list(requireAccount(request).id, request.query.limit),
	);
}
