import Type from 'typebox';
import type { HttpApp, HttpDeps } from '../http-deps';
import { requireAccount } from '../auth';
import { HttpError, notFound } from '../errors';
import { emailParam } from '../params';
import { IdParam, MessageParams, errorResponses } from '../schemas';
import { toStatusView } from '../../store/webhook-views';
import {
	AttemptStatusSchema,
	WebhookAttemptDetailSchema,
	WebhookAttemptSchema,
	WebhookDeliverySchema,
	WebhookSecretSchema,
} from '../../schemas/webhook';
import { attemptDetail } from '../render/attempt-detail';

const secretResponse = { 200: WebhookSecretSchema, ...errorResponses(401, 429) };

/** Webhook signing secret, Recent Activity, delivery status and redelivery. */
export function webhookRoutes(app: HttpApp, { webhooks }: HttpDeps): void {
	app.get(
		'/api/webhook-secret',
		{ schema: { summary: "The account's webhook signing secret (Standard Webhooks)", response: secretResponse } },
		async (request) => ({ secret: await webhooks.secrets.get(requireAccount(request).id) }),
	);

	app.post(
		'/api/webhook-secret/rotate',
		{
			schema: {
				summary: 'Replace the webhook signing secret; for 24 hours deliveries are signed with the old one too',
				response: secretResponse,
			},
		},
		async (request) => ({ secret: await webhooks.secrets.rotate(requireAccount(request).id) }),
	);

	app.get(
		'/api/webhook-activity',
		{
			schema: {
				summary: "Recent Activity: the account's webhook attempts, newest first",
				querystring: Type.Object({
					address: Type.Optional(Type.String({ maxLength: 254, description: 'only attempts for this inbox' })),
					status: Type.Optional(AttemptStatusSchema),
					// Of an address (its webhooks) or of delivery events (/api/event-webhooks).
					subscriptionId: Type.Optional(IdParam('subscription')),
					limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
				}),
				response: { 200: Type.Array(WebhookAttemptSchema), ...errorResponses(400, 401, 429) },
			},
		},
		async (request) => {
			const account = requireAccount(request);
			const { address, status, subscriptionId, limit } = request.query;
			return await webhooks.deliveries.activity(account.id, {
				address: address && emailParam(address).address,
				status,
				subscriptionId,
				limit,
			});
		},
	);

	app.get(
		'/api/webhook-attempts/:attemptId',
		{
			schema: {
				summary:
					'One attempt of Recent Activity with the request it sent and the response it got (bodies cut: request 32 KB, response 16 KB)',
				description:
					'The whole payload of a webhook delivery can be read again with GET /api/addresses/:email/messages/:messageId/payload while the message exists. ' +
					'Kept as long as the activity log (--webhook-activity-days).',
				params: Type.Object({ attemptId: IdParam('attempt') }),
				response: { 200: WebhookAttemptDetailSchema, ...errorResponses(400, 401, 404, 429) },
			},
		},
		async (request) => {
			const account = requireAccount(request);
			const stored = await webhooks.deliveries.attempt(request.params.attemptId);
			// Another account's attempt is as unknown as one that never was.
			if (!stored || stored.accountId !== account.id) throw notFound(`No webhook attempt ${request.params.attemptId}`);
			return attemptDetail(stored);
		},
	);

	app.get(
		'/api/addresses/:email/messages/:messageId/webhook-status',
		{
			schema: {
				summary: 'The webhook delivery status of a message',
				params: MessageParams,
				response: { 200: WebhookDeliverySchema, ...errorResponses(400, 401, 404, 429) },
			},
		},
		async (request) => {
			const account = requireAccount(request);
			const email = emailParam(request.params.email).address;
			const delivery = await webhooks.deliveries.forMessage(request.params.messageId, email);
			if (!delivery || delivery.account_id !== account.id)
				throw notFound(`No webhook delivery for message ${request.params.messageId} in ${email}`);
			return toStatusView(delivery);
		},
	);

	app.post(
		'/api/webhook-deliveries/:deliveryId/redeliver',
		{
			schema: {
				summary: 'Send a failed (or refused) delivery again now, with a fresh retry schedule',
				params: Type.Object({ deliveryId: IdParam('delivery') }),
				response: { 200: WebhookDeliverySchema, ...errorResponses(400, 401, 404, 409, 429) },
			},
		},
		async (request) => {
			const account = requireAccount(request);
			const { deliveryId } = request.params;
			const delivery = await webhooks.deliveries.get(deliveryId);
			if (!delivery || delivery.account_id !== account.id) throw notFound(`No webhook delivery ${deliveryId}`);
			if (!(await webhooks.redeliver(deliveryId)))
				throw new HttpError(409, `Delivery ${deliveryId} is ${delivery.status}; only a failed or refused one can be redelivered`);
			return toStatusView((await webhooks.deliveries.get(deliveryId))!);
		},
	);
}
