import http from 'node:http';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';

/**
 * Hostile HTTP on every route of the OpenAPI document: traversal and odd encodings in every
 * path parameter, broken and oversized bodies. Each answer is a 4xx with the `{ error, message }`
 * JSON body; never a 500, never a stack trace or a file from disk.
 */

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

/** Static and documentation paths that must not serve files from outside their folders. */
const TRAVERSAL_PATHS = [
	'/..%2f..%2fpackage.json',
	'/%2e%2e/%2e%2e/package.json',
	'/js/..%2f..%2f..%2fpackage.json',
	'/js/%2e%2e/%2e%2e/%2e%2e/package.json',
	'/docs/static/..%2f..%2f..%2f..%2fpackage.json',
	'/docs/..%2f..%2f..%2fpackage.json',
	'/docs/%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd',
	'/index.html%00.js',
	'/..%5c..%5cpackage.json',
	'/js/pages/..%2f..%2f..%2f..%2fdata%2fmailroom.sqlite',
];

interface Answer {
	status: number;
	contentType: string;
	text: string;
}

function request(
	port: number,
	method: string,
	path: string,
	options: { key?: string; body?: Buffer | string; contentType?: string } = {},
): Promise<Answer> {
	return new Promise((resolve, reject) => {
		const headers: Record<string, string> = {};
		if (options.key) headers['Service-Key'] = options.key;
		if (options.body !== undefined) headers['Content-Type'] = options.contentType ?? 'application/json';
		const req = http.request({ host: '127.0.0.1', port, method: method.toUpperCase(), path, headers }, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (chunk: Buffer) => chunks.push(chunk));
			res.on('end', () =>
				resolve({
					status: res.statusCode!,
					contentType: String(res.headers['content-type'] ?? ''),
					text: Buffer.concat(chunks).toString(),
				}),
			);
		});
		req.on('error', reject);
		req.end(options.body);
	});
}

/** Why an answer is unacceptable, or undefined when it is a clean 4xx error. */
function fault(answer: Answer): string | undefined {
	if (answer.status < 400 || answer.status > 499) return `status ${answer.status}`;
	if (!answer.contentType.startsWith('application/json')) return `content type ${answer.contentType}`;
	const body = JSON.parse(answer.text);
	if (Object.keys(body).sort().join() !== 'error,message' || typeof body.error !== 'string' || typeof body.message !== 'string')
		return `body ${answer.text}`;
	if (/\n\s+at |node_modules|\/dist\/|\.js:\d+/.test(answer.text)) return `stack trace ${answer.text}`;
	return undefined;
}

interface Operation {
	method: string;
	template: string;
	/** Whether the route declares a request body. */
	hasBody: boolean;
}

describe('hostile HTTP', () => {
	let server: TestMailroom;
	let operations: Operation[];
	beforeAll(async () => {
		server = await startTestMailroom({ rateLimitKey: 1_000_000, rateLimitIp: 1_000_000 });
		const doc = (await server.api('/openapi.json')).body as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
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
			for (const segment of HOSTILE_SEGMENTS) {
				const path = template.replace(/\{[^}]+\}/g, segment);
				for (const key of [server.adminKey, undefined]) {
					const problem = fault(await request(server.httpPort, method, path, { key }));
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
				const answer = await request(server.httpPort, method, path, { key: server.adminKey, body, contentType });
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
				const answer = await request(server.httpPort, 'get', `${path}?${query}`, { key: server.adminKey });
				const problem = answer.status < 400 ? undefined : fault(answer);
				if (problem) faults.push(`GET ${path}?${query}: ${problem}`);
			}
		}
		expect(faults).toEqual([]);
	});

	it('serves no file from outside the static folders', async () => {
		const faults: string[] = [];
		for (const path of TRAVERSAL_PATHS) {
			const answer = await request(server.httpPort, 'get', path);
			if (answer.text.includes('"name": "n8n-nodes-mailroom"') || answer.text.includes('root:') || answer.text.startsWith('SQLite format'))
				faults.push(`${path}: served a file`);
			const problem = fault(answer);
			if (problem) faults.push(`${path}: ${problem}`);
		}
		expect(faults).toEqual([]);
	});

	it('keeps serving afterwards', async () => {
		await server.send({ from: 'a@sender.test', to: 'after@http.test', subject: 'after', text: 'x' });
		const list = await server.api('/api/addresses/after@http.test/messages');
		expect(list.status).toBe(200);
		expect(list.body[0].subject).toBe('after');
	});
});
