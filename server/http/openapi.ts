import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { KEY_HEADER, MAILSAC_KEY_HEADER } from './auth';
import { optionalBody } from './params';
import { API_TAGS, tagOf } from './openapi-tags';
import { describeResponses, withCommonErrors } from './openapi-errors';

/** Marks, between the two transforms below, the operations whose JSON body may be left out. */
const OPTIONAL_BODY = 'x-optional-body';

type Operation = {
	[OPTIONAL_BODY]?: boolean;
	requestBody?: { required?: boolean };
	responses?: Parameters<typeof describeResponses>[1];
};

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
					'Operations are grouped by resource; each lists the errors it can answer, all as `{ "error": ..., "message": ... }`.',
			},
			tags: API_TAGS,
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
		// The document's view of each route, never the route's own schema (new objects only): its group, the errors every
		// route of its kind can give, and whether its body may be left out (@fastify/swagger marks every request body
		// required; routes with the optionalBody hook accept none).
		transform: ({ schema, url, route }) => {
			if (!schema) return { schema, url };
			const tag = tagOf(url);
			const documented = { ...withCommonErrors(schema, url, route), ...(tag && !schema.tags ? { tags: [tag] } : {}) };
			const hooks = [route.preValidation].flat();
			return { schema: hooks.includes(optionalBody) ? { ...documented, [OPTIONAL_BODY]: true } : documented, url };
		},
		transformObject: (documents) => {
			const document = 'openapiObject' in documents ? documents.openapiObject : documents.swaggerObject;
			for (const [path, item] of Object.entries(document.paths ?? {}) as [string, Record<string, Operation>][]) {
				for (const operation of Object.values(item)) {
					if (operation?.responses) describeResponses(path, operation.responses);
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
	await app.register(swaggerUi, { routePrefix: DOCS_PREFIX, staticCSP: true, transformStaticCSP: docsPolicy });
}

/**
 * The Content-Security-Policy of the docs page: @fastify/swagger-ui's (scripts and styles from the page's own files only),
 * with two changes.
 * - The hashes of the `<style>` elements Swagger UI renders itself (the top bar's logo is an SVG with one), so the page
 *   applies them and logs no violation; read from the files served, so they follow Swagger UI's version. No 'unsafe-inline'.
 * - Without upgrade-insecure-requests: on a server reached over plain HTTP at anything but localhost, it had the browser
 *   fetch the page's scripts and styles over HTTPS, which such a server does not speak, and the page stayed blank. Over
 *   HTTPS every file the page loads is its own, HTTPS already.
 */
function docsPolicy(header: string): string {
	inlineStyleHashes ??= swaggerUiInlineStyles().map((css) => `'sha256-${createHash('sha256').update(css).digest('base64')}'`);
	return header
		.replace(/\s*upgrade-insecure-requests;?/, '')
		.replace(/style-src ([^;]*);/, (_all, sources: string) => `style-src ${[sources.trim(), ...inlineStyleHashes!].join(' ')};`);
}
let inlineStyleHashes: string[] | undefined;

/** The text of the `<style>` elements the Swagger UI bundles create (React: createElement("style",null,"...")). */
function swaggerUiInlineStyles(): string[] {
	const staticDir = join(dirname(require.resolve('@fastify/swagger-ui')), 'static');
	return ['swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js'].flatMap((file) =>
		[...readFileSync(join(staticDir, file), 'utf8').matchAll(/createElement\("style",null,("(?:[^"\\]|\\.)*")\)/g)].map(
			(match) => JSON.parse(match[1]) as string,
		),
	);
}

/** The server package's version (dist/http/ is two levels below its package.json). */
function packageVersion(): string {
	return (JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
}
