import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { traversalFaults } from '../../helpers/raw-http';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** Documentation paths that must not serve files from outside the Swagger UI assets. */
const TRAVERSAL_PATHS = [
	'/docs/static/..%2f..%2f..%2f..%2fpackage.json',
	'/docs/..%2f..%2f..%2fpackage.json',
	'/docs/%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd',
];

/** What the test reads of the OpenAPI document. */
interface Media {
	schema?: unknown;
}
interface Operation {
	summary?: string;
	parameters?: { in: string; name: string }[];
	responses?: Record<string, { content?: Record<string, Media> }>;
	requestBody?: { required?: boolean; content?: Record<string, Media> };
}
interface OpenApiDocument {
	openapi: string;
	info: { title: string };
	components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
	security: Record<string, string[]>[];
	paths: Record<string, Record<string, Operation>>;
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
	});

	it('documents every route with a summary, its parameters and a schema for every response', async () => {
		const { body: doc } = await server.api<OpenApiDocument>('/openapi.json');
		const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
			Object.entries(item)
				.filter(([method]) => METHODS.includes(method))
				.map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, path, operation })),
		);
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
});
