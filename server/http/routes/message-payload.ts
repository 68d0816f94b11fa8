import type { Readable } from 'node:stream';
import Type from 'typebox';
import type { HttpApp, HttpDeps } from '../http-deps';
import { accessibleInbox, messageNotFound } from '../inbox-access';
import { MessageParams, errorResponses } from '../schemas';
import { jsonBody } from '../render/stored-body';
import { buildPayload } from '../../payload/webhook-payload';
import { WebhookPayloadSchema } from '../../schemas/payload';
import { refTo } from '../../schemas/shared';

/** GET …/messages/:messageId/payload: a stored message as webhooks receive it, for clients that fetch it later. */
export function messagePayloadRoutes(app: HttpApp, { addresses, messages, encryptedInboxes, publicUrl, durable }: HttpDeps): void {
	app.get(
		'/api/addresses/:email/messages/:messageId/payload',
		{
			schema: {
				summary: 'A message as webhooks receive it: the webhook payload (spec 2.3 fields, then html, cc and attachments)',
				description:
					'The same JSON a webhook or webhook subscription (and so the n8n Mailroom Trigger) is sent for this message: `text` as ' +
					'received (links as they are, not numbered as GET /api/text numbers them), `html` as received or null when the mail has ' +
					'no HTML part, `headers`, `cc`, the raw source, and `attachments` with the URL that downloads each. Open to the same ' +
					"callers as GET /api/addresses/{email}/messages/{messageId}: anyone for a public address, only its owner's key for a " +
					'private one. `?raw=0` leaves out `raw` (the whole message source, often the largest field).',
				params: MessageParams,
				querystring: Type.Object(
					{
						raw: Type.Union([Type.Literal(0), Type.Literal(1)], {
							default: 1,
							description: '0: leave out `raw`, the whole message source (the other fields hold its parts)',
						}),
					},
					{ additionalProperties: false },
				),
				response: {
					// Documented as the payload, sent as bytes made a piece at a time (jsonBody).
					200: Type.Unsafe<Buffer | Readable>(refTo(WebhookPayloadSchema)),
					...errorResponses(400, 401, 403, 404, 429),
				},
			},
		},
		async (request, reply) => {
			const { address } = await accessibleInbox(request, addresses, request.params.email);
			const { messageId } = request.params;
			const record = await messages.get(address, messageId);
			const content = record && (await messages.content(address, messageId));
			if (!record || !content) throw messageNotFound(address, messageId);
			// The payload names the inbox's encrypted address: mail sent to it must reach the inbox, as when a webhook hands it out.
			if (await encryptedInboxes.remember(record.inbox)) await durable();
			const payload = await buildPayload(record, content, await encryptedInboxes.tokenFor(record.inbox), publicUrl());
			// JSON leaves out a field whose value is undefined.
			const { length, body } = await jsonBody(request.query.raw === 0 ? { ...payload, raw: undefined } : payload);
			return reply.type('application/json; charset=utf-8').header('content-length', length).send(body);
		},
	);
}
