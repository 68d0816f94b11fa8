import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { KEY_HEADER, MAILSAC_KEY_HEADER } from './auth';
import { optionalBody } from './params';

/** Marks, between the two transforms below, the operations whose JSON body may be left out. */
const OPTIONAL_BODY = 'x-optional-body';

type Operation = { [OPTIONAL_BODY]?: boolean; requestBody?: { required?: boolean } };

/** Where the generated OpenAPI 3 document and the docs page are served. */
export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PREFIX = '/docs';

/**
 * Generates the OpenAPI 3 document from the route schemas, so it cannot drift from what the routes validate.
 * Must be registered before the routes: @fastify/swagger collects them from the onRoute hook.
 * The docs page serves the Swagger UI files shipped inside @fastify/swagger-ui: no internet access is needed.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
	await app.register(swagger, {
		openapi: {
			openapi: '3.0.3',
			info: {
				title: 'Mailroom API',
				version: packageVersion(),
				description:
					'Inbound and outbound email service with a Mailsac-compatible REST API. Send the API key in the `Service-Key` header ' +
					"(or `Mailsac-Key`, the header Mailsac's own client sends); public inboxes can be read without one. " +
					'Errors are `{ "error": ..., "message": ... }`.',
			},
			components: {
				securitySchemes: {
					ServiceKey: { type: 'apiKey', in: 'header', name: KEY_HEADER },
					MailsacKey: { type: 'apiKey', in: 'header', name: MAILSAC_KEY_HEADER, description: 'the same key, as Mailsac clients send it' },
				},
			},
			security: [{ ServiceKey: [] }, { MailsacKey: [] }, {}],
		},
		// Shared schemas keep their $id as their name in components.schemas (Message, Forwarding, Error, ...).
		refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
		// @fastify/swagger marks every request body required; routes with the optionalBody hook accept none.
		transform: ({ schema, url, route }) => {
			const hooks = [route.preValidation].flat();
			return { schema: hooks.includes(optionalBody) ? { ...schema, [OPTIONAL_BODY]: true } : schema, url };
		},
		transformObject: (documents) => {
			const document = 'openapiObject' in documents ? documents.openapiObject : documents.swaggerObject;
			for (const item of Object.values(document.paths ?? {}) as Record<string, Operation>[]) {
				for (const operation of Object.values(item)) {
					if (!operation?.[OPTIONAL_BODY]) continue;
					delete operation[OPTIONAL_BODY];
					if (operation.requestBody) operation.requestBody.required = false;
				}
			}
			return document;
		},
	});
	app.get(OPENAPI_PATH, { schema: { hide: true } }, () => app.swagger());
	// The page loads the same document from /docs/json.
	await app.register(swaggerUi, { routePrefix: DOCS_PREFIX, staticCSP: true });
}

/** The server package's version (dist/http/ is two levels below its package.json). */
function packageVersion(): string {
	return (JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
}
