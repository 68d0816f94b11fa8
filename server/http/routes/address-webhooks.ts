import Type from 'typebox';
import type { HttpApp, HttpDeps } from '../http-deps';
import { HttpError, notFound } from '../errors';
import { ownAddress } from '../inbox-access';
import { requireAccount } from '../auth';
import { assertDeliverable } from '../webhook-targets';
import { EmailParams, IdParam, errorResponses } from '../schemas';
import { MAX_SUBSCRIPTIONS, NewSubscriptionSchema, WebhookSubscriptionSchema } from '../../schemas/webhook';
import { refTo } from '../../schemas/shared';

const subscription = refTo(WebhookSubscriptionSchema);
const SubscriptionParams = Type.Object({ ...EmailParams.properties, id: IdParam('subscription') });

/**
 * Webhook subscriptions of an address: beside its one `webhook`, any number of consumers of its mail (each n8n trigger
 * adds its own), each with an optional filter. Only the address's owner sees or changes them.
 */
export function addressWebhookRoutes(app: HttpApp, { addresses, subscriptions, webhooks }: HttpDeps): void {
	app.post(
		'/api/addresses/:email/webhooks',
		{
			schema: {
				summary: 'Subscribe a webhook to the mail of your address (private or catch-all), beside its own webhook',
				description:
					"Each message of the address (of a catch-all address: of the domain's addresses without subscriptions of their own) that " +
					'passes the filter is POSTed to the url like a webhook delivery: the same payload, signature, retries and Recent Activity. ' +
					`At most ${MAX_SUBSCRIPTIONS} per address; they are deleted with the address when it is released.`,
				params: EmailParams,
				body: NewSubscriptionSchema,
				response: { 201: subscription, ...errorResponses(400, 401, 403, 404, 409, 429) },
			},
		},
		async (request, reply) => {
			const { _id: address } = await ownAddress(request, addresses);
			await assertDeliverable(webhooks.targets, requireAccount(request), { url: request.body.url });
			if ((await subscriptions.count(address)) >= MAX_SUBSCRIPTIONS) {
				throw new HttpError(409, `${address} has ${MAX_SUBSCRIPTIONS} webhook subscriptions already: delete one first`);
			}
			return reply.code(201).send(await subscriptions.create(address, request.body.url, request.body.filter));
		},
	);

	app.get(
		'/api/addresses/:email/webhooks',
		{
			schema: {
				summary: 'The webhook subscriptions of your address, oldest first',
				params: EmailParams,
				response: { 200: Type.Array(subscription), ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request) => subscriptions.list((await ownAddress(request, addresses))._id),
	);

	app.delete(
		'/api/addresses/:email/webhooks/:id',
		{
			schema: {
				summary: 'Remove one webhook subscription of your address: its mail is no longer posted there',
				params: SubscriptionParams,
				response: { 200: subscription, ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request) => {
			const { _id: address } = await ownAddress(request, addresses);
			const removed = await subscriptions.remove(address, request.params.id);
			if (!removed) throw notFound(`${address} has no webhook subscription ${request.params.id}`);
			return removed;
		},
	);
}
