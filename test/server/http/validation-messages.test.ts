import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ErrorBody } from 'mailroom-server/dist/schemas/error';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { enc, sendMail } from '../../helpers/messages';

/** What Ajv says on its own: a 400 message holding any of these was not put into words. */
const AJV_PHRASES = [
	/must match pattern/,
	/must NOT/,
	/must be equal to/,
	/must have required property/,
	/must match a schema in anyOf/,
	/must match format/,
	/must be [<>]=/,
	/, (body|querystring|params|headers)\//, // several errors joined: one problem told branch by branch
];

interface Parameter {
	in: string;
	name: string;
	schema?: { type?: string; format?: string; enum?: unknown[]; pattern?: string; anyOf?: unknown[]; minimum?: number };
}
interface SchemaObject {
	$ref?: string;
	properties?: Record<string, unknown>;
}
interface Operation {
	parameters?: Parameter[];
	requestBody?: { content?: Record<string, { schema: SchemaObject }> };
}
interface OpenApiDocument {
	paths: Record<string, Record<string, Operation>>;
	components: { schemas: Record<string, SchemaObject> };
}

describe('validation messages: one sentence naming the field and what it takes', () => {
	const inbox = 'fields@validation.test';
	let server: TestMailroom;
	let key: string;
	let messageId: string;

	const call = (method: string, path: string, body?: unknown) => server.api<ErrorBody>(path, { method, key, body });

	beforeAll(async () => {
		server = await startTestMailroom();
		key = server.adminKey;
		expect((await call('POST', `/api/addresses/${enc(inbox)}`)).status).toBe(200);
		[messageId] = await sendMail(server, { to: inbox });
	});
	afterAll(() => server.stop());

	/** A path of the message of the test (its id is known once the tests run: `:id` stands for it). */
	const message = (suffix: string) => `/api/addresses/${enc(inbox)}/messages/:id${suffix}`;

	it.each([
		// Unions: one sentence in the schema's own words, whatever branch came closest.
		[
			'PUT',
			`/api/addresses/${enc(inbox)}`,
			{ webhook: 'ftp://example.org/' },
			'body/webhook must be an http(s) URL, or null or "" to clear it',
		],
		['PUT', `/api/addresses/${enc(inbox)}`, { webhook: 42 }, 'body/webhook must be an http(s) URL, or null or "" to clear it'],
		[
			'PUT',
			`/api/addresses/${enc(inbox)}`,
			{ webhookSlack: 'slack' },
			'body/webhookSlack must be an http(s) URL, or null or "" to clear it',
		],
		['PUT', `/api/addresses/${enc(inbox)}`, { forward: 'nope' }, 'body/forward must be an email address, or null or "" to stop forwarding'],
		[
			'PUT',
			`/api/addresses/${enc(inbox)}`,
			{ webhookSlackToFrom: 'yes please' },
			'body/webhookSlackToFrom must be one of true, false or null',
		],
		[
			'POST',
			'/api/outgoing-messages',
			{ from: inbox, to: [{}], text: 'x' },
			'body/to must be one address, a comma-separated list of addresses, or an array of at most 50 addresses',
		],
		// A value of the right kind that is wrong in one way: that way.
		[
			'PUT',
			`/api/addresses/${enc(inbox)}`,
			{ webhook: `https://example.org/${'x'.repeat(2048)}` },
			'body/webhook must be at most 2048 characters long',
		],
		['POST', `/api/addresses/${enc(inbox)}/webhooks`, { url: 'example.org/hook' }, 'body/url must be an http(s) URL'],
		[
			'POST',
			`/api/addresses/${enc(inbox)}/webhooks`,
			{ url: 'https://example.org/', filter: { to: 'x' } },
			'body/filter has a field it does not take: "to"',
		],
		['POST', '/api/outgoing-messages', { to: 'a@b.test', text: 'x' }, 'body/from is required'],
		[
			'POST',
			'/api/outgoing-messages',
			{ from: inbox, to: 'a@b.test', text: 'x', attachments: [{ filename: 'a.pdf', content: 'AA==', contentType: 'pdf' }] },
			'body/attachments/0/contentType must be a MIME type such as application/pdf',
		],
		['POST', '/api/private-addresses-bulk', { addresses: [] }, 'body/addresses must have at least 1 item'],
		[
			'PUT',
			'/api/domains/validation.test',
			{ catchAll: 'nope' },
			'body/catchAll must be an address of the domain, or null or "" to remove the catch-all address',
		],
		// Enumerations list what they take.
		['PUT', message('/folder/drafts'), undefined, 'params/folder must be one of inbox, all, spam or trash'],
		[
			'GET',
			message('/headers?messageHeadersFormat=xml'),
			undefined,
			'querystring/messageHeadersFormat must be one of json, json-ordered or plain',
		],
		['GET', '/api/webhook-activity?status=lost', undefined, 'querystring/status must be one of delivered, retrying, failed or refused'],
		['GET', `/api/body/${enc(inbox)}/:id?images=2`, undefined, 'querystring/images must be 0 or 1'],
		// Other kinds, ranges and forms.
		['PUT', message('/read/maybe'), undefined, 'params/read must be true or false'],
		[
			'GET',
			`/api/addresses/${enc(inbox)}/messages/not!an!id`,
			undefined,
			'params/messageId must be a message id: 1 to 64 letters, digits, _ or -',
		],
		['GET', `/api/addresses/${enc(inbox)}/messages?limit=5000`, undefined, 'querystring/limit must be at most 1000'],
		['GET', `/api/addresses/${enc(inbox)}/messages?limit=many`, undefined, 'querystring/limit must be a whole number'],
		[
			'GET',
			`/api/addresses/${enc(inbox)}/messages?until=yesterday`,
			undefined,
			'querystring/until must be an ISO 8601 date-time with a time zone, such as 2026-11-22T10:22:07.601Z',
		],
		['GET', `/api/addresses/${enc(inbox)}/wait-for-message?subjct=x`, undefined, 'querystring has a field it does not take: "subjct"'],
		['PUT', message('/labels/' + 'x'.repeat(65)), undefined, 'params/label must be at most 64 characters long'],
	] as const)('%s %s %j: %s', async (method, path, body, expected) => {
		const answer = await call(method, path.replace(':id', messageId), body);
		expect(answer).toMatchObject({ status: 400, body: { error: 'Bad Request', message: expected } });
	});

	it('never answers with what the validator says on its own, on any route, for any parameter or body field', async () => {
		const { body: doc } = await server.api<OpenApiDocument>('/openapi.json');
		const values: Record<string, string> = { email: enc(inbox), messageId, domain: 'validation.test' };
		const problems: string[] = [];
		let answered400 = 0;
		const check = async (method: string, path: string, body: unknown, what: string) => {
			const answer = await call(method, path, body);
			if (answer.status !== 400) return;
			answered400++;
			const text = answer.body.message;
			if (!/^(body|querystring|params)[/ ]/.test(text)) problems.push(`${what}: "${text}" does not start with the field`);
			for (const phrase of AJV_PHRASES) if (phrase.test(text)) problems.push(`${what}: "${text}" is the validator's own words`);
		};
		for (const [template, item] of Object.entries(doc.paths)) {
			for (const [method, operation] of Object.entries(item)) {
				const path = template.replace(/\{(\w+)\}/g, (_all, name: string) => values[name] ?? 'AAAAAAAAAAAAAAAA');
				for (const parameter of operation.parameters ?? []) {
					const { schema = {} } = parameter;
					// A free-text query parameter takes anything (and a wait with a filter waits): nothing to refuse.
					const freeText = schema.type === 'string' && !schema.format && !schema.enum && !schema.pattern;
					if (parameter.in === 'path') {
						const bad = template
							.replace(`{${parameter.name}}`, 'not%20valid!')
							.replace(/\{(\w+)\}/g, (_all, name: string) => values[name] ?? 'AAAAAAAAAAAAAAAA');
						await check(method.toUpperCase(), bad, undefined, `${method} ${template} params/${parameter.name}`);
					} else if (parameter.in === 'query' && !freeText) {
						await check(
							method.toUpperCase(),
							`${path}?${parameter.name}=not%20valid!`,
							undefined,
							`${method} ${template} ?${parameter.name}`,
						);
					}
				}
				const schema = operation.requestBody?.content?.['application/json']?.schema;
				if (!schema || method === 'get') continue;
				const resolved = schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()!] : schema;
				await check(method.toUpperCase(), path, [], `${method} ${template} body []`);
				for (const field of Object.keys(resolved.properties ?? {}))
					await check(method.toUpperCase(), path, { [field]: { not: ['valid'] } }, `${method} ${template} body/${field}`);
			}
		}
		expect(problems).toEqual([]);
		expect(answered400).toBeGreaterThan(60); // the sweep did reach the validators
	});
});
