import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ErrorBody } from 'mailroom-server/dist/schemas/error';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { expectError, sendMail } from '../../helpers/messages';
import { fault, rawRequest } from '../../helpers/raw-http';

describe('errors: the not-found and error handlers, the body limit', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom();
	});
	afterAll(() => server.stop());

	it('gives a JSON 404 for an unknown route or method', async () => {
		expectError(await server.api('/api/no-such-thing'), 404, /GET \/api\/no-such-thing/);
		expectError(await server.api('/api/me', { method: 'PATCH' }), 404);
	});

	it('gives a JSON 400 for a body that is not valid JSON', async () => {
		const owner = await server.createAccount('json-errors');
		await server.api('/api/addresses/json@example.test', { method: 'POST', key: owner.key });
		const response = await server.api('/api/private-address-forwarding/json@example.test', {
			method: 'PUT',
			key: owner.key,
			body: '{"webhook": ',
		});
		expectError(response, 400, /JSON/);
	});

	it('gives a JSON 413 for a body over 1 MB', async () => {
		const owner = await server.createAccount('big-bodies');
		await server.api('/api/addresses/big@example.test', { method: 'POST', key: owner.key });
		const body = JSON.stringify({ webhook: `https://example.org/${'x'.repeat(1024 * 1024)}` });
		expectError(await server.api('/api/private-address-forwarding/big@example.test', { method: 'PUT', key: owner.key, body }), 413);
		// a body just under the limit is read (and then validated)
		const almost = JSON.stringify({ webhook: `https://example.org/${'x'.repeat(1000 * 1000)}` });
		expectError(
			await server.api('/api/private-address-forwarding/big@example.test', { method: 'PUT', key: owner.key, body: almost }),
			400,
			/webhook/,
		);
	});
});

describe('X-Content-Type-Options: nosniff', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom();
	});
	afterAll(() => server.stop());

	it('is on every answer: JSON, text, raw source, HTML bodies, errors, health and the dashboard', async () => {
		const [id] = await sendMail(server, { to: 'sniffed@example.test', subject: 'sniff', text: '<script>x()</script>', html: '<p>hi</p>' });
		const paths = [
			'/api/addresses/sniffed@example.test/messages',
			`/api/text/sniffed@example.test/${id}`,
			`/api/raw/sniffed@example.test/${id}`,
			`/api/body/sniffed@example.test/${id}`,
			`/api/dirty/sniffed@example.test/${id}`,
			`/api/addresses/sniffed@example.test/messages/${id}/payload`,
			'/api/no-such-thing',
			'/api/me',
			'/livez',
			'/openapi.json',
			'/',
		];
		const answers = await Promise.all(
			paths.map(async (path) => [path, (await fetch(`${server.httpUrl}${path}`)).headers.get('x-content-type-options')]),
		);
		expect(answers).toEqual(paths.map((path) => [path, 'nosniff']));
	});
});

describe('rate limits', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom({ rateLimitIp: 3, rateLimitKey: 5 });
	});
	afterAll(() => server.stop());

	it('limits callers without a key per IP, with a JSON 429', async () => {
		for (let i = 0; i < 3; i++) expect((await server.api('/api/addresses/limited@example.test/messages')).status).toBe(200);
		const refused = await server.api<ErrorBody>('/api/addresses/limited@example.test/messages');
		expectError(refused, 429, /3 requests per minute/);
		expect(refused.body.error).toBe('Too Many Requests');
		expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
	});

	it('limits each API key on its own, apart from the IP', async () => {
		const first = await server.createAccount('limited-one');
		const second = await server.createAccount('limited-two');
		for (let i = 0; i < 5; i++) expect((await server.api('/api/me', { key: first.key })).status).toBe(200);
		expectError(await server.api('/api/me', { key: first.key }), 429, /5 requests per minute/);
		expect((await server.api('/api/me', { key: second.key })).status).toBe(200);
	});

	it("counts requests with unknown keys against the caller's IP, so made-up keys do not get around it", async () => {
		const fresh = await startTestMailroom({ rateLimitIp: 3, rateLimitKey: 5 });
		try {
			for (let i = 0; i < 3; i++) expectError(await fresh.api('/api/me', { key: `mr_made-up-${i}` }), 401);
			expectError(await fresh.api('/api/me', { key: 'mr_made-up-again' }), 429);
			expectError(await fresh.api('/api/addresses/x@example.test/messages'), 429);
			// a valid key has its own budget
			expect((await fresh.api('/api/me', { key: fresh.adminKey })).status).toBe(200);
		} finally {
			await fresh.stop();
		}
	});

	it('documents the defaults: 1200 per key and 300 per IP each minute', async () => {
		const defaults = await startTestMailroom();
		try {
			expect({ key: defaults.config.rateLimitKey, ip: defaults.config.rateLimitIp }).toEqual({ key: 1200, ip: 300 });
			const response = await defaults.api('/api/addresses/defaults@example.test/messages');
			expect(response.headers.get('x-ratelimit-limit')).toBe('300');
			expect((await defaults.api('/api/me', { key: defaults.adminKey })).headers.get('x-ratelimit-limit')).toBe('1200');
		} finally {
			await defaults.stop();
		}
	});
});

/** Inserted verbatim into the request path (node:http sends it as is; fetch would normalise dot segments). */
const HOSTILE_SEGMENTS = [
	'..',
	'.',
	'%2e%2e',
	'.%2e',
	'..%2f..%2f..%2fetc%2fpasswd',
	'%2e%2e%2f%2e%2e%2fetc%2fpasswd',
	'%252e%252e%252fetc%252fpasswd',
	'..%5c..%5cwindows%5cwin.ini',
	'%c0%ae%c0%ae%2f',
	'%00',
	'a%00b%40x.test',
	'x%40y.test%00.html',
	'%',
	'%zz',
	'%ff%fe',
	'%e2%80%ae',
	'%f0%9f%92%a9%40x.test',
	'j%c3%bcrgen%40%c3%abxample.test',
	'x%40y.test%2f..%2f..%2f',
	'%2f',
	"'%20OR%201=1--",
	'%3Cscript%3Ealert(1)%3C%2Fscript%3E',
	'a'.repeat(2000),
	`${'a'.repeat(300)}%40x.test`,
];

interface Operation {
	method: string;
	template: string;
	/** Whether the route declares a request body. */
	hasBody: boolean;
}

/**
 * Hostile HTTP on every route of the OpenAPI document: traversal and odd encodings in every
 * path parameter, broken and oversized bodies. Each answer is a 4xx with the `{ error, message }`
 * JSON body; never a 500, never a stack trace. (Paths into the static folders: the dashboard and OpenAPI tests.)
 */
describe('hostile HTTP', () => {
	let server: TestMailroom;
	let operations: Operation[];
	beforeAll(async () => {
		server = await startTestMailroom({ rateLimitKey: 1_000_000, rateLimitIp: 1_000_000 });
		const doc = (await server.api<{ paths: Record<string, Record<string, { requestBody?: unknown }>> }>('/openapi.json')).body;
		operations = Object.entries(doc.paths).flatMap(([template, methods]) =>
			Object.entries(methods).map(([method, spec]) => ({ method, template, hasBody: spec.requestBody !== undefined })),
		);
	});
	afterAll(() => server.stop());

	it('finds the routes in the OpenAPI document', () => {
		expect(operations.length).toBeGreaterThan(30);
		expect(operations.filter((op) => op.template.includes('{'))).not.toHaveLength(0);
	});

	it('answers hostile path parameters on every route with a 4xx JSON error, with and without a key', async () => {
		const faults: string[] = [];
		for (const { method, template } of operations.filter((op) => op.template.includes('{'))) {
			// A long poll answers at once with no time to wait, rather than after its default 30 s.
			const query = template.endsWith('/wait-for-message') ? '?timeout=0' : '';
			for (const segment of HOSTILE_SEGMENTS) {
				const path = template.replace(/\{[^}]+\}/g, segment) + query;
				for (const key of [server.adminKey, undefined]) {
					const problem = fault(await rawRequest(server.httpPort, method, path, { key }));
					if (problem) faults.push(`${method.toUpperCase()} ${path} (${key ? 'key' : 'no key'}): ${problem}`);
				}
			}
		}
		expect(faults).toEqual([]);
	});

	it('answers broken, oversized and hostile bodies on every POST and PUT route with a 4xx JSON error', async () => {
		// `always`: refused before any route sees it; `schema`: refused where the route declares a body (others ignore it);
		// `never`: valid JSON whose unknown properties a route may ignore, but not a 5xx.
		const bodies: [name: string, refused: 'always' | 'schema' | 'never', body: string | Buffer, contentType?: string][] = [
			['invalid JSON', 'always', '{"webhook": "http://x.test/",'],
			['binary garbage', 'always', Buffer.from([0, 1, 0xff, 0xfe, 0x7b])],
			['an unknown content type', 'always', '<xml/>', 'application/xml'],
			['a 2 MB body', 'always', JSON.stringify({ padding: 'x'.repeat(2 * 1024 * 1024) })],
			['unclosed nesting 100,000 deep', 'always', '['.repeat(100_000)],
			['a prototype-pollution body', 'always', '{"__proto__":{"admin":true}}'],
			['a constructor-pollution body', 'always', '{"constructor":{"prototype":{"admin":true}}}'],
			['JSON sent as text/plain', 'schema', '{"webhook":null}', 'text/plain'],
			['a JSON string instead of an object', 'schema', '"just a string"'],
			['an unknown property nested 10,000 deep', 'never', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`],
		];
		const faults: string[] = [];
		for (const { method, template, hasBody } of operations.filter((op) => op.method === 'post' || op.method === 'put')) {
			const path = template.replace('{email}', 'hostile%40http.test').replace(/\{[^}]+\}/g, 'nonexistent');
			for (const [name, refused, body, contentType] of bodies) {
				const answer = await rawRequest(server.httpPort, method, path, { key: server.adminKey, body, contentType });
				const mustRefuse = refused === 'always' || (refused === 'schema' && hasBody);
				const problem = mustRefuse ? fault(answer) : answer.status >= 500 ? `status ${answer.status}` : undefined;
				if (problem) faults.push(`${method.toUpperCase()} ${path} with ${name}: ${problem}`);
			}
		}
		expect(faults).toEqual([]);
		expect(({} as Record<string, unknown>).admin).toBeUndefined();
	});

	it('answers odd query strings on every GET route without a 5xx, errors as JSON', async () => {
		const queries = [
			'limit=%00&until=%2e%2e%2f',
			'limit=-1&skip=1e309',
			'limit=abc&download=%ff',
			'query=%00%ff%fe&q=%25%25',
			`andTo=${'%28'.repeat(5000)}`,
			'until=9999-99-99',
			'messageHeadersFormat=%00&images=%ff',
			'limit=1&limit=2',
		];
		const faults: string[] = [];
		for (const { template } of operations.filter((op) => op.method === 'get')) {
			const path = template.replace('{email}', 'hostile%40http.test').replace(/\{[^}]+\}/g, 'nonexistent');
			for (const query of queries) {
				const answer = await rawRequest(server.httpPort, 'get', `${path}?${query}`, { key: server.adminKey });
				const problem = answer.status < 400 ? undefined : fault(answer);
				if (problem) faults.push(`GET ${path}?${query}: ${problem}`);
			}
		}
		expect(faults).toEqual([]);
	});

	it('keeps serving afterwards', async () => {
		await server.send({ from: 'a@sender.test', to: 'after@http.test', subject: 'after', text: 'x' });
		const list = await server.api<MessageRecord[]>('/api/addresses/after@http.test/messages');
		expect(list.status).toBe(200);
		expect(list.body[0].subject).toBe('after');
	});
});
