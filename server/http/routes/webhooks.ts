import type { FastifyInstance } from 'fastify';
import type { HttpDeps } from '../http-deps';
import { requireAccount } from '../auth';
import { HttpError, notFound } from '../errors';
import { emailParam } from '../params';
import { emailAndMessageParams, errorResponses } from '../schemas';
import { toStatusView, type AttemptStatus } from '../../store/webhook-deliveries';
import { ID_PATTERN } from '../../store/ids';

const secretResponse = {
	200: {
		type: 'object',
		properties: { secret: { type: 'string', description: 'Standard Webhooks signing secret (whsec_ and base64)' } },
		required: ['secret'],
	},
	...errorResponses(401, 429),
} as const;

const nullableIso = { type: ['string', 'null'], format: 'date-time' } as const;

const deliveryStatusSchema = {
	type: 'object',
	description: 'The webhook delivery of one message',
	properties: {
		_id: { type: 'string', description: 'delivery id; also the webhook-id header of every attempt' },
		messageId: { type: 'string' },
		address: { type: 'string' },
		url: { type: 'string' },
		status: { type: 'string', enum: ['pending', 'delivered', 'failed', 'refused'] },
		attempts: { type: 'integer' },
		lastStatusCode: { type: ['integer', 'null'] },
		lastError: { type: ['string', 'null'] },
		nextRetry: nullableIso,
		created: { type: 'string', format: 'date-time' },
		updated: { type: 'string', format: 'date-time' },
	},
	required: ['_id', 'messageId', 'address', 'url', 'status', 'attempts', 'lastStatusCode', 'lastError', 'nextRetry', 'created', 'updated'],
} as const;

const activitySchema = {
	type: 'object',
	description: 'One webhook attempt',
	properties: {
		_id: { type: 'string' },
		deliveryId: { type: 'string' },
		messageId: { type: 'string' },
		address: { type: 'string' },
		url: { type: 'string' },
		attempt: { type: 'integer', description: '1 for the first attempt of the delivery' },
		status: { type: 'string', enum: ['delivered', 'retrying', 'failed', 'refused'] },
		statusCode: { type: ['integer', 'null'], description: "the receiver's HTTP status; null when no response came" },
		error: { type: ['string', 'null'] },
		durationMs: { type: 'integer' },
		time: { type: 'string', format: 'date-time' },
		nextRetry: nullableIso,
	},
	required: ['_id', 'deliveryId', 'messageId', 'address', 'url', 'attempt', 'status', 'statusCode', 'error', 'durationMs', 'time', 'nextRetry'],
} as const;

/** Webhook signing secret, Recent Activity, delivery status and redelivery. */
export async function webhookRoutes(app: FastifyInstance, { webhooks }: HttpDeps): Promise<void> {
	app.get(
		'/api/webhook-secret',
		{ schema: { summary: "The account's webhook signing secret (Standard Webhooks)", response: secretResponse } },
		async (request) => ({ secret: webhooks.secrets.get(requireAccount(request).id) }),
	);

	app.post(
		'/api/webhook-secret/rotate',
		{
			schema: {
				summary: 'Replace the webhook signing secret; for 24 hours deliveries are signed with the old one too',
				response: secretResponse,
			},
		},
		async (request) => ({ secret: webhooks.secrets.rotate(requireAccount(request).id) }),
	);

	app.get<{ Querystring: { address?: string; status?: AttemptStatus; limit: number } }>(
		'/api/webhook-activity',
		{
			schema: {
				summary: "Recent Activity: the account's webhook attempts, newest first",
				querystring: {
					type: 'object',
					properties: {
						address: { type: 'string', maxLength: 254, description: 'only attempts for this inbox' },
						status: { type: 'string', enum: ['delivered', 'retrying', 'failed', 'refused'] },
						limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
					},
				},
				response: { 200: { type: 'array', items: activitySchema }, ...errorResponses(400, 401, 429) },
			},
		},
		async (request) => {
			const account = requireAccount(request);
			const { address, status, limit } = request.query;
			return webhooks.deliveries.activity(account.id, { address: address && emailParam(address).address, status, limit });
		},
	);

	app.get<{ Params: { email: string; messageId: string } }>(
		'/api/addresses/:email/messages/:messageId/webhook-status',
		{
			schema: {
				summary: 'The webhook delivery status of a message',
				params: emailAndMessageParams,
				response: { 200: deliveryStatusSchema, ...errorResponses(400, 401, 404, 429) },
			},
		},
		async (request) => {
			const account = requireAccount(request);
			const email = emailParam(request.params.email).address;
			const delivery = webhooks.deliveries.forMessage(request.params.messageId, email);
			if (!delivery || delivery.account_id !== account.id) throw notFound(`No webhook delivery for message ${request.params.messageId} in ${email}`);
			return toStatusView(delivery);
		},
	);

	app.post<{ Params: { deliveryId: string } }>(
		'/api/webhook-deliveries/:deliveryId/redeliver',
		{
			schema: {
				summary: 'Send a failed (or refused) delivery again now, with a fresh retry schedule',
				params: { type: 'object', properties: { deliveryId: { type: 'string', pattern: ID_PATTERN } }, required: ['deliveryId'] },
				response: { 200: deliveryStatusSchema, ...errorResponses(400, 401, 404, 409, 429) },
			},
		},
		async (request) => {
			const account = requireAccount(request);
			const { deliveryId } = request.params;
			const delivery = webhooks.deliveries.get(deliveryId);
			if (!delivery || delivery.account_id !== account.id) throw notFound(`No webhook delivery ${deliveryId}`);
			if (!webhooks.redeliver(deliveryId)) throw new HttpError(409, `Delivery ${deliveryId} is ${delivery.status}; only a failed or refused one can be redelivered`);
			return toStatusView(webhooks.deliveries.get(deliveryId)!);
		},
	);
}
