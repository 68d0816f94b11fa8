import Type from 'typebox';
import type { HttpApp, HttpDeps } from '../http-deps';
import { HttpError, notFound } from '../errors';
import { requireAccount } from '../auth';
import { assertDeliverable } from '../webhook-targets';
import { IdParam, errorResponses } from '../schemas';
import {
	EVENT_TYPES,
	EventSubscriptionSchema,
	MAX_EVENT_SUBSCRIPTIONS,
	NewEventSubscriptionSchema,
	SuppressionSchema,
} from '../../schemas/delivery-event';
import { refTo } from '../../schemas/shared';

const subscription = refTo(EventSubscriptionSchema);
const suppression = refTo(SuppressionSchema);

/**
 * What happens to the account's sent mail: subscriptions to its delivery events (each change of a recipient's status is
 * POSTed to them like a webhook delivery), and the suppression list the bounces fill. Only the account's own key reaches
 * either.
 */
export function deliveryEventRoutes(app: HttpApp, { deliveryEvents, suppressions, webhooks }: HttpDeps): void {
	app.post(
		'/api/event-webhooks',
		{
			schema: {
				summary: "Subscribe a webhook to your sent mail's delivery events",
				description:
					`Each change of a recipient's status of the types listed (${EVENT_TYPES.join(', ')}) is POSTed to the url as a ` +
					'DeliveryEvent, signed with your webhook secret, retried and shown in Recent Activity like a webhook delivery. ' +
					`At most ${MAX_EVENT_SUBSCRIPTIONS} per account.`,
				body: NewEventSubscriptionSchema,
				response: { 201: subscription, ...errorResponses(400, 401, 409, 429) },
			},
		},
		async (request, reply) => {
			const account = requireAccount(request);
			await assertDeliverable(webhooks.targets, account, { url: request.body.url });
			if ((await deliveryEvents.subscriptions(account.id)).length >= MAX_EVENT_SUBSCRIPTIONS) {
				throw new HttpError(409, `Your account has ${MAX_EVENT_SUBSCRIPTIONS} event subscriptions already: delete one first`);
			}
			return reply.code(201).send(await deliveryEvents.subscribe(account.id, request.body.url, request.body.events));
		},
	);

	app.get(
		'/api/event-webhooks',
		{
			schema: {
				summary: "Your account's delivery event subscriptions, oldest first",
				response: { 200: Type.Array(subscription), ...errorResponses(401, 429) },
			},
		},
		async (request) => deliveryEvents.subscriptions(requireAccount(request).id),
	);

	app.delete(
		'/api/event-webhooks/:id',
		{
			schema: {
				summary: 'Remove one delivery event subscription',
				params: Type.Object({ id: IdParam('subscription') }),
				response: { 200: subscription, ...errorResponses(400, 401, 404, 429) },
			},
		},
		async (request) => {
			const removed = await deliveryEvents.unsubscribe(requireAccount(request).id, request.params.id);
			if (!removed) throw notFound(`Your account has no event subscription ${request.params.id}`);
			return removed;
		},
	);

	app.get(
		'/api/suppressions',
		{
			schema: {
				summary: 'The addresses your account no longer sends to, newest first',
				description:
					'A recipient goes on the list when a delivery report says it bounced (5.x.x) or complained; a send naming one is refused ' +
					'(422) unless it says "sendToSuppressed": true.',
				response: { 200: Type.Array(suppression), ...errorResponses(401, 429) },
			},
		},
		async (request) => suppressions.list(requireAccount(request).id),
	);

	app.delete(
		'/api/suppressions/:address',
		{
			schema: {
				summary: 'Take an address off your suppression list: sends to it go again',
				params: Type.Object({ address: Type.String({ maxLength: 254 }) }),
				response: { 200: suppression, ...errorResponses(400, 401, 404, 429) },
			},
		},
		async (request) => {
			const removed = await suppressions.remove(requireAccount(request).id, request.params.address);
			if (!removed) throw notFound(`${request.params.address} is not on your suppression list`);
			return removed;
		},
	);
}
