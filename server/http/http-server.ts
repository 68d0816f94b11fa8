import Fastify, { LogController, type FastifyError, type FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import rateLimit from '@fastify/rate-limit';
import { registerOpenApi } from './openapi';
import { lazyCompilers } from './lazy-compilers';
import type { HttpDeps } from './http-deps';
import { callerOf, registerAuth } from './auth';
import { isOutOfSpace } from '../store/out-of-space';
import { HttpError, errorBody } from './errors';
import { BODY_LIMIT, BODY_TOO_LARGE, bodyTooLarge } from './body-limit';
import { SHARED_SCHEMAS } from './schemas';
import { registerBodyParsers } from './request-bodies';
import { refuseNulCharacters } from './nul-characters';
import { closeConnectionsWhenAnswered } from './close-when-answered';
import { validationProblem } from './validation-messages';
import { EXPECTED } from '../schemas/shared';
import { DeletedWhileReadError } from '../bytes/stored-bytes';
import { AccountError, DomainError, StoreUnavailableError } from '../store/store';
import { SearchAbandonedError, SearchTimeoutError } from '../store/search-budget';
import { messageRoutes } from './routes/messages';
import { messageContentRoutes } from './routes/message-content';
import { messagePayloadRoutes } from './routes/message-payload';
import { messageStateRoutes } from './routes/message-state';
import { accountInboxRoutes } from './routes/account-inbox';
import { attachmentRoutes } from './routes/attachments';
import { addressRoutes } from './routes/addresses';
import { accountRoutes } from './routes/account';
import { adminRoutes } from './routes/admin';
import { chaosRoutes } from './routes/chaos';
import { domainRoutes } from './routes/domains';
import { outgoingRoutes } from './routes/outgoing';
import { threadRoutes } from './routes/threads';
import { dashboardRoutes } from '../dashboard/dashboard';
import { webhookRoutes } from './routes/webhooks';
import { addressWebhookRoutes } from './routes/address-webhooks';
import { deliveryEventRoutes } from './routes/delivery-events';
import { incomingMessagesRoutes } from './routes/incoming-messages';
import { waitForRoutes } from './routes/wait-for';
import { healthRoutes } from './routes/health';
import { linkCheckRoutes } from './routes/link-check';

export async function buildHttpServer(deps: HttpDeps) {
	const app = Fastify({
		loggerInstance: deps.log,
		logController: new LogController({ disableRequestLogging: true }),
		bodyLimit: BODY_LIMIT,
		return503OnClosing: true,
		// No timeout may cut a request waiting for mail (up to 5 minutes): none is Fastify's default too, said here so it stays so.
		connectionTimeout: 0,
		requestTimeout: 0,
		ajv: {
			customOptions: {
				// A body a schema closes (additionalProperties: false) is refused for a field it does not know, not quietly stripped of it.
				removeAdditional: false,
				// Errors carry the schema that failed, for its words (x-expected): see validation-messages.
				verbose: true,
				keywords: [{ keyword: EXPECTED, schemaType: 'string' }],
			},
		},
		schemaController: { compilersFactory: lazyCompilers() },
		// Every validation error as one sentence naming the field and what it takes, and the field for a form to mark.
		schemaErrorFormatter: (errors, context) => {
			const { message, field } = validationProblem(errors, context);
			return new HttpError(400, message, field);
		},
		// An address may be 254 characters, and some clients percent-encode most of them (3 bytes each).
		routerOptions: { maxParamLength: 1024 },
		// Malformed percent-encoding and over-long parameters: the same error shape as every other error.
		frameworkErrors: (err, _request, reply: FastifyReply) => {
			const status = err.statusCode ?? 400;
			reply.code(status).send(errorBody(status, err.message));
		},
	}).withTypeProvider<TypeBoxTypeProvider>();
	for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
	registerBodyParsers(app);
	refuseNulCharacters(app);
	closeConnectionsWhenAnswered(app);

	app.setErrorHandler((err: FastifyError, request, reply) => {
		if (err instanceof HttpError) return reply.code(err.statusCode).send(errorBody(err.statusCode, err.message, err.field));
		// Before the response has begun (once it has, the connection is cut short of its Content-Length): as if it had gone a moment sooner.
		if (err instanceof DeletedWhileReadError) return reply.code(404).send(errorBody(404, err.message));
		if (err.validation) return reply.code(400).send(errorBody(400, err.message));
		if (err instanceof StoreUnavailableError) {
			request.log.warn({ err: err.message, url: request.url }, 'the store is unavailable');
			return reply.code(503).header('retry-after', '5').send(errorBody(503, 'The database is unavailable; try again shortly'));
		}
		// Refusals of the store, each with its status (a race the route's own checks cannot see: two revocations of one key).
		if (err instanceof AccountError) return reply.code(err.status).send(errorBody(err.status, err.message));
		if (err instanceof DomainError) return reply.code(403).send(errorBody(403, err.message));
		// A search past its time, or whose client is gone (nobody reads that answer): the store's work on it has stopped.
		if (err instanceof SearchTimeoutError || err instanceof SearchAbandonedError) return reply.code(503).send(errorBody(503, err.message));
		// A change that could not be written for lack of disk space: said as such, and /readyz hears of it.
		if (isOutOfSpace(err)) {
			deps.readiness.writeFailed(err);
			request.log.warn({ err: err.message, url: request.url }, 'a change could not be stored for lack of disk space');
			return reply.code(507).send(errorBody(507, "The server's disk is full: nothing was changed; try again once an operator frees space"));
		}
		if (err.code === BODY_TOO_LARGE) return reply.code(413).send(errorBody(413, bodyTooLarge(request.routeOptions.bodyLimit)));
		const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
		if (status === 500) request.log.error({ err, url: request.url }, 'request failed');
		return reply.code(status).send(errorBody(status, status === 500 ? 'Internal server error' : err.message));
	});
	app.setNotFoundHandler((request, reply) =>
		reply.code(404).send(errorBody(404, `No route for ${request.method} ${request.url.split('?')[0]}`)),
	);

	// Counted per API key when a valid one is sent, else per client IP (registerAuth has resolved the key by now).
	await app.register(rateLimit, {
		timeWindow: '1 minute',
		keyGenerator: callerOf,
		max: (_request, key) => (key.startsWith('key:') ? deps.config.rateLimitKey : deps.config.rateLimitIp),
		errorResponseBuilder: (_request, context) =>
			new HttpError(429, `Rate limit of ${context.max} requests per minute reached; retry in ${context.after}`),
	});
	registerAuth(app, deps.accounts);
	// No browser guesses a type other than the one sent (a text body read as HTML or script), on every answer, streamed ones too.
	app.addHook('onRequest', async (_request, reply) => {
		reply.raw.setHeader('X-Content-Type-Options', 'nosniff');
	});
	// By the pattern of the route matched, never the URL: one series per route, whatever clients ask for.
	app.addHook('onResponse', async (request, reply) => {
		deps.metrics.answered(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime);
	});
	// A change is acknowledged only once it is on disk, like accepted mail.
	app.addHook('onSend', async (request) => {
		if (request.method !== 'GET' && request.method !== 'HEAD') await deps.durable();
	});
	await registerOpenApi(app); // before the routes, so it sees them all

	healthRoutes(app, deps);
	messageRoutes(app, deps);
	waitForRoutes(app, deps);
	messageContentRoutes(app, deps);
	linkCheckRoutes(app, deps);
	messagePayloadRoutes(app, deps);
	messageStateRoutes(app, deps);
	accountInboxRoutes(app, deps);
	attachmentRoutes(app, deps);
	addressRoutes(app, deps);
	domainRoutes(app, deps);
	accountRoutes(app, deps);
	adminRoutes(app, deps);
	chaosRoutes(app, deps);
	outgoingRoutes(app, deps);
	threadRoutes(app, deps);
	webhookRoutes(app, deps);
	addressWebhookRoutes(app, deps);
	deliveryEventRoutes(app, deps);
	await incomingMessagesRoutes(app, deps);
	await app.register(dashboardRoutes);
	return app;
}
