import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { STATUS_CODES } from 'node:http';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { traversalFaults } from '../../helpers/raw-http';
import { launchChromium, screenshot } from '../../helpers/browser';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** Documentation paths that must not serve files from outside the Swagger UI assets. */
const TRAVERSAL_PATHS = [
	'/docs/static/..%2f..%2f..%2f..%2fpackage.json',
	'/docs/..%2f..%2f..%2fpackage.json',
	'/docs/%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd',
];

/** What the test reads of the OpenAPI document. */
interface Media {
	schema?: { $ref?: string; properties?: Record<string, unknown> };
	example?: unknown;
}
interface Operation {
	summary?: string;
	tags?: string[];
	security?: unknown[];
	parameters?: { in: string; name: string }[];
	responses?: Record<string, { description?: string; content?: Record<string, Media> }>;
	requestBody?: { required?: boolean; content?: Record<string, Media> };
}
interface OpenApiDocument {
	openapi: string;
	info: { title: string };
	tags: { name: string; description: string }[];
	components: { securitySchemes: Record<string, unknown>; schemas: Record<string, { example?: unknown }> };
	security: Record<string, string[]>[];
	paths: Record<string, Record<string, Operation>>;
}

/** Every operation of the document, named as `METHOD /path`. */
function operationsOf(doc: OpenApiDocument) {
	return Object.entries(doc.paths).flatMap(([path, item]) =>
		Object.entries(item)
			.filter(([method]) => METHODS.includes(method))
			.map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, path, operation })),
	);
}

const ERROR_REF = '#/components/schemas/Error';

/** A schema as far as the walk of request bodies reads it. */
interface JsonSchema {
	$ref?: string;
	type?: string | string[];
	properties?: Record<string, JsonSchema>;
	additionalProperties?: boolean | JsonSchema;
	items?: JsonSchema;
	anyOf?: JsonSchema[];
	oneOf?: JsonSchema[];
	allOf?: JsonSchema[];
	enum?: unknown[];
}

/** Body objects that are maps by design, their keys the sender's own (`METHOD /path field`): their values have a schema. */
const OPEN_MAPS = ['POST /api/outgoing-messages headers'];

/** Every object schema in `schema`, $refs followed, with where it is (`attachments[].filter`; '' for the body itself). */
function objectsIn(
	schema: JsonSchema | undefined,
	components: Record<string, JsonSchema>,
	where = '',
): { where: string; schema: JsonSchema }[] {
	if (!schema) return [];
	if (schema.$ref) return objectsIn(components[schema.$ref.split('/').pop()!], components, where);
	const found: { where: string; schema: JsonSchema }[] = [];
	// OpenAPI 3.0 has no null type: @fastify/swagger writes null as an object that is null only.
	const isNull = schema.enum?.length === 1 && schema.enum[0] === null;
	const isObject = !isNull && (schema.type === 'object' || !!schema.properties);
	if (isObject) found.push({ where, schema });
	for (const [name, property] of Object.entries(schema.properties ?? {}))
		found.push(...objectsIn(property, components, where ? `${where}.${name}` : name));
	if (typeof schema.additionalProperties === 'object') found.push(...objectsIn(schema.additionalProperties, components, `${where}.*`));
	found.push(...objectsIn(schema.items, components, `${where}[]`));
	for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])])
		found.push(...objectsIn(branch, components, where));
	return found;
}

describe('OpenAPI document', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom();
	});
	afterAll(() => server.stop());

	it('is an OpenAPI 3 document at /openapi.json, readable without a key', async () => {
		const doc = await server.api<OpenApiDocument>('/openapi.json');
		expect(doc.status).toBe(200);
		expect(doc.body.openapi).toMatch(/^3\./);
		expect(doc.body.info.title).toBe('Mailroom API');
		expect(doc.body.components.securitySchemes.ServiceKey).toEqual({ type: 'apiKey', in: 'header', name: 'service-key' });
		// The same key, in the header Mailsac's own client sends it in.
		expect(doc.body.components.securitySchemes.MailsacKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'mailsac-key' });
		expect(doc.body.security).toEqual([{ ServiceKey: [] }, { MailsacKey: [] }, {}]);
		expect(Object.keys(doc.body.components.schemas)).toEqual(
			expect.arrayContaining(['Error', 'Message', 'Forwarding', 'WebhookSubscription']),
		);
		// An error names the field at fault where there is one: optional.
		expect(doc.body.components.schemas.Error).toMatchObject({
			required: ['error', 'message'],
			properties: { error: { type: 'string' }, message: { type: 'string' }, field: { type: 'string' } },
		});
	});

	it('documents every route with a summary, its parameters and a schema for every response', async () => {
		const { body: doc } = await server.api<OpenApiDocument>('/openapi.json');
		const operations = operationsOf(doc);
		// The routes of the core, addresses, domains and account are all there.
		expect(operations.map((op) => op.name)).toEqual(
			expect.arrayContaining([
				'GET /api/addresses/{email}/messages',
				'GET /api/text/{email}/{messageId}',
				'GET /api/addresses',
				'PUT /api/addresses/{email}',
				'GET /api/domains/{domain}/messages',
				'GET /api/me/stats',
				'DELETE /api/me/keys/{keyId}',
				'POST /api/addresses/{email}/webhooks',
				'GET /api/addresses/{email}/webhooks',
				'DELETE /api/addresses/{email}/webhooks/{id}',
			]),
		);
		const problems: string[] = [];
		for (const { name, path, operation } of operations) {
			if (!operation.summary) problems.push(`${name}: no summary`);
			const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
			const declared = (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
			for (const param of pathParams) if (!declared.includes(param)) problems.push(`${name}: path parameter ${param} has no schema`);
			const responses = Object.entries(operation.responses ?? {});
			if (!responses.some(([code]) => /^2/.test(code))) problems.push(`${name}: no success response`);
			for (const [code, response] of responses) {
				if (code === '204') continue; // no content, nothing to describe
				const media = Object.values(response.content ?? {});
				if (media.length === 0 || media.some((m) => !m.schema)) problems.push(`${name}: response ${code} has no schema`);
			}
			if (['PUT', 'POST', 'PATCH'].some((m) => name.startsWith(m)) && operation.requestBody) {
				const media = Object.values(operation.requestBody.content ?? {});
				if (media.some((m) => !m.schema)) problems.push(`${name}: request body has no schema`);
			}
		}
		expect(problems).toEqual([]);
	});

	it('groups every operation under one of the declared tags, each described, in the order of the page', async () => {
		const { body: doc } = await server.api<OpenApiDocument>('/openapi.json');
		const names = doc.tags.map((tag) => tag.name);
		expect(names.slice(0, 3)).toEqual(['Messages', 'Message content', 'Message state']);
		expect(names).toEqual(
			expect.arrayContaining(['Attachments', 'Outgoing messages', 'Addresses', 'Domains', 'Webhooks', 'Account', 'Health']),
		);
		for (const tag of doc.tags) expect(tag.description).toMatch(/^\S.{10,}$/);
		const operations = operationsOf(doc);
		const misfiled = operations.filter(({ operation }) => operation.tags?.length !== 1 || !names.includes(operation.tags[0]));
		expect(misfiled.map(({ name, operation }) => `${name}: ${JSON.stringify(operation.tags)}`)).toEqual([]);
		// No group is empty, and a few operations are where a reader looks for them.
		expect(names.filter((name) => !operations.some(({ operation }) => operation.tags![0] === name))).toEqual([]);
		const tagOf = (path: string, method: string) => doc.paths[path][method].tags![0];
		expect(tagOf('/api/outgoing-messages', 'post')).toBe('Outgoing messages');
		expect(tagOf('/api/addresses/{email}/messages/{messageId}', 'get')).toBe('Messages');
		expect(tagOf('/api/addresses/{email}/messages/{messageId}/attachments', 'get')).toBe('Attachments');
		expect(tagOf('/api/addresses/{email}/webhooks', 'post')).toBe('Webhooks');
		expect(tagOf('/api/me/keys', 'post')).toBe('Account');
	});

	it('shows the send body with the fields a sender fills in first and a realistic example', async () => {
		const { body: doc } = await server.api<OpenApiDocument>('/openapi.json');
		const media = doc.paths['/api/outgoing-messages'].post.requestBody!.content!['application/json'];
		const fields = Object.keys(media.schema!.properties!);
		expect(fields.slice(0, 5)).toEqual(['to', 'from', 'subject', 'text', 'html']);
		expect(fields.at(-1)).toBe('_serviceKey');
		expect(media.example).toMatchObject({
			to: expect.stringMatching(/^[a-z]+@example\.(com|org)$/),
			from: expect.stringMatching(/<[a-z]+@example\.com>$/),
			subject: expect.stringMatching(/^[A-Z][\w #]+$/),
		});
		expect(media.example).not.toHaveProperty('_serviceKey');
		// Generated filler (random characters for patterns) is nowhere: only printable ASCII and line breaks.
		expect(JSON.stringify(media.example)).toMatch(/^[ -~]+$/);
		// The main records show an example of their own, with ids shaped like the real ones.
		for (const name of ['Message', 'Outgoing', 'Forwarding', 'Domain', 'WebhookSubscription', 'AttachmentMeta']) {
			expect(doc.components.schemas[name].example).toBeDefined();
		}
		expect(doc.components.schemas.Message.example).toMatchObject({ _id: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/) });
	});

	it('documents the error answers of every operation with the Error schema, a meaning and an example', async () => {
		const { body: doc } = await server.api<OpenApiDocument>('/openapi.json');
		const problems: string[] = [];
		for (const { name, operation } of operationsOf(doc)) {
			const responses = operation.responses ?? {};
			const errors = Object.keys(responses).filter((code) => Number(code) >= 400);
			const publicCheck = Array.isArray(operation.security) && operation.security.length === 0;
			// Every operation that takes a key: bad input or key headers, unknown key, rate limit, store unavailable.
			const expected = publicCheck ? [] : ['400', '401', '429', '503'];
			if (operation.requestBody) expected.push('413');
			for (const code of expected) if (!errors.includes(code)) problems.push(`${name}: no ${code}`);
			if (publicCheck) continue; // /readyz's 503 is its readiness report
			for (const code of errors) {
				const { description, content } = responses[code];
				// JSON, whatever the operation answers when it succeeds.
				if (Object.keys(content ?? {}).join() !== 'application/json') problems.push(`${name} ${code}: not only JSON`);
				const media = content?.['application/json'];
				if (media?.schema?.$ref !== ERROR_REF) problems.push(`${name} ${code}: not the Error schema`);
				if (!description || description === 'Default Response') problems.push(`${name} ${code}: no description`);
				const example = media?.example as { error?: string; message?: string } | undefined;
				if (example?.error !== STATUS_CODES[code] || !example?.message) problems.push(`${name} ${code}: no example`);
			}
		}
		expect(problems).toEqual([]);
		// What the routes' own code answers is there too.
		const codes = (path: string, method: string) => Object.keys(doc.paths[path][method].responses!);
		expect(codes('/api/outgoing-messages', 'post')).toEqual(expect.arrayContaining(['402', '403', '404', '413', '422']));
		expect(codes('/api/addresses/{email}/messages/{messageId}', 'get')).toEqual(expect.arrayContaining(['403', '404']));
		expect(codes('/api/addresses/{email}/wait-for-message', 'get')).toContain('408');
		expect(codes('/api/me/keys/{keyId}', 'delete')).toContain('409');
		expect(codes('/api/me', 'get')).not.toContain('404');
		expect(codes('/livez', 'get')).toEqual(['200']);
	});

	it('answers errors as before: { error, message } only, documented in the route or not', async () => {
		// 401 is in the route's own schema (Fastify serializes with it); 400 for two different keys only in the document.
		const noKey = await server.api('/api/me');
		expect(noKey.status).toBe(401);
		expect(noKey.body).toEqual({ error: 'Unauthorized', message: expect.stringContaining('needs an API key') });
		const twoKeys = await server.api('/api/addresses', { headers: { 'Service-Key': 'one', 'Mailsac-Key': 'two' } });
		expect(twoKeys.status).toBe(400);
		expect(twoKeys.body).toEqual({ error: 'Bad Request', message: expect.stringContaining('different keys') });
	});

	it('marks a request body optional only where the route accepts none', async () => {
		const { body: doc } = await server.api<OpenApiDocument>('/openapi.json');
		expect(doc.paths['/api/addresses/{email}'].post.requestBody).toMatchObject({
			required: false,
			content: { 'application/json': { schema: { $ref: '#/components/schemas/ForwardingUpdate' } } },
		});
		expect(doc.paths['/api/me/keys'].post.requestBody!.required).toBe(false);
		expect(doc.paths['/api/addresses/{email}'].put.requestBody!.required).toBe(true);
		expect(doc.paths['/api/private-addresses-bulk'].post.requestBody!.required).toBe(true);
		expect(doc.paths['/api/addresses/{email}/webhooks'].post.requestBody!.required).toBe(true);
		expect(JSON.stringify(doc)).not.toContain('x-optional-body');
	});

	it('closes every object of every request body, so a field no route takes is refused rather than ignored', async () => {
		const { body: doc } = await server.api<OpenApiDocument>('/openapi.json');
		const problems: string[] = [];
		let objects = 0;
		for (const { name, operation } of operationsOf(doc)) {
			for (const media of Object.values(operation.requestBody?.content ?? {})) {
				for (const { where, schema } of objectsIn(media.schema as JsonSchema, doc.components.schemas as Record<string, JsonSchema>)) {
					objects++;
					const field = `${name} ${where || '(the body)'}`;
					if (OPEN_MAPS.includes(field)) {
						if (typeof schema.additionalProperties !== 'object') problems.push(`${field}: a map whose values have no schema`);
					} else if (schema.additionalProperties !== false) problems.push(`${field}: open (additionalProperties is not false)`);
				}
			}
		}
		expect(problems).toEqual([]);
		expect(objects).toBeGreaterThanOrEqual(10); // the walk did reach the bodies, nested objects included
	});

	it('serves the docs page and its Swagger UI assets locally', async () => {
		const page = await server.api('/docs/');
		expect(page.status).toBe(200);
		expect(page.headers.get('content-type')).toContain('text/html');
		const scripts = [...page.text.matchAll(/src="\.\/([^"]+\.js)"/g)].map((match) => match[1]);
		expect(scripts.length).toBeGreaterThan(0);
		expect(page.text).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)[^"']*\.(js|css)/);
		for (const script of scripts) {
			const asset = await server.api(`/docs/${script}`);
			expect(asset.status).toBe(200);
			expect(asset.text.length).toBeGreaterThan(100);
		}
		const spec = await server.api<OpenApiDocument>('/docs/json');
		expect(spec.status).toBe(200);
		expect(spec.body.openapi).toMatch(/^3\./);
	});

	it('serves no file from outside the Swagger UI assets', async () => {
		expect(await traversalFaults(server.httpPort, TRAVERSAL_PATHS)).toEqual([]);
	});

	it('loads in Chromium with no console error: its policy allows what Swagger UI applies, and no more', async () => {
		const page = await server.api('/docs/');
		const policy = page.headers.get('content-security-policy')!;
		expect(policy).toMatch(/script-src 'self'\s*;/);
		expect(policy).not.toContain('unsafe-inline');
		// Over plain HTTP at a LAN address, upgrade-insecure-requests left the page blank (its files asked for over HTTPS).
		expect(policy).not.toContain('upgrade-insecure-requests');
		const browser = await launchChromium();
		try {
			const tab = await browser.newPage({ viewport: { width: 1280, height: 900 } });
			const errors: string[] = [];
			tab.on('console', (message) => {
				if (message.type() === 'error') errors.push(message.text());
			});
			tab.on('pageerror', (error) => errors.push(error.message));
			await tab.goto(`${server.httpUrl}/docs/`);
			await tab.locator('.opblock-tag-section').first().waitFor({ timeout: 15_000 });
			expect(await tab.locator('.opblock-tag').first().textContent()).toContain('Messages');
			// The top bar's logo (Swagger UI renders it with an inline <style>) is drawn, then replaced: give it its moment.
			await tab.locator('.topbar img').waitFor({ timeout: 5_000 });
			await screenshot(tab, 'api-docs', false);
			expect(errors).toEqual([]);
		} finally {
			await browser.close();
		}
	}, 30_000);
});
