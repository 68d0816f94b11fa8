import websocket from '@fastify/websocket';
import type { HttpApp, HttpDeps } from '../http-deps';
import { IncomingMessagesQuerySchema } from '../../websocket/incoming-messages-hub';
import { HttpError, badRequest } from '../errors';
import { serviceKeyOf } from '../auth';
import { errorResponses } from '../schemas';

/** Close code 1011: the server could not serve the connection (its store did not answer). */
const CLOSE_UNAVAILABLE = 1011;

/** GET /incoming-messages?key=&addresses=: a websocket of new messages (spec 6), attached to the hub that sends them. */
export async function incomingMessagesRoutes(app: HttpApp, { incomingMessages }: HttpDeps): Promise<void> {
	await app.register(websocket, {
		options: { maxPayload: 64 * 1024 },
		// A client that breaks the protocol (a malformed frame, a frame over maxPayload; ws closes it with 1002 or 1009) is
		// the client's fault: one warning line, not an error with a stack per connection.
		errorHandler: (err, socket, request) => {
			request.log.warn({ reason: err.message, ip: request.ip }, 'a websocket client broke the protocol; its connection is closed');
			socket.terminate();
		},
	});
	app.route({
		method: 'GET',
		url: '/incoming-messages',
		schema: {
			// OpenAPI 3.0 cannot describe a websocket (its answer is 101 and frames); docs/api.md documents it.
			hide: true,
			summary: 'Websocket of new messages to your addresses and domains that have enablews (a plain HTTP request gets 426)',
			querystring: IncomingMessagesQuerySchema,
			response: errorResponses(426, 429),
		},
		// Before the upgrade, as the REST API refuses two different key headers: which key was meant is not ours to guess.
		preValidation: (request: { query: { key?: string } } & Parameters<typeof serviceKeyOf>[0], _reply, done) => {
			const header = serviceKeyOf(request);
			if (request.query.key && header && request.query.key !== header) {
				return done(badRequest('The key query parameter and the key header hold different keys: send one key'));
			}
			done();
		},
		handler: () => {
			throw new HttpError(426, 'This endpoint is a websocket: connect with a websocket client (ws:// or wss://)');
		},
		wsHandler: (socket, request) => {
			// Browsers cannot set headers on a websocket, hence ?key=; other clients may send their usual key header instead.
			incomingMessages
				.connect(socket, { ...request.query, key: request.query.key ?? serviceKeyOf(request) }, request.ip)
				.catch(() => socket.close(CLOSE_UNAVAILABLE, 'the store is unavailable, try again later'));
		},
	});
}
