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
	/\b(body|querystring|params|headers)\//, // the validator's name of the request part, not the field as the request writes it
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
		// Credits, so that a send's checks after the credit check (its attachments) are reached.
		key = (await server.createAccount('fields', 10)).key;
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
			'webhook must be an http(s) URL, or null or "" to clear it',
			'webhook',
		],
		['PUT', `/api/addresses/${enc(inbox)}`, { webhook: 42 }, 'webhook must be an http(s) URL, or null or "" to clear it', 'webhook'],
		[
			'PUT',
			`/api/addresses/${enc(inbox)}`,
			{ webhookSlack: 'slack' },
			'webhookSlack must be an http(s) URL, or null or "" to clear it',
			'webhookSlack',
		],
		[
			'PUT',
			`/api/addresses/${enc(inbox)}`,
			{ forward: 'nope' },
			'forward must be an email address, or null or "" to stop forwarding',
			'forward',
		],
		[
			'PUT',
			`/api/addresses/${enc(inbox)}`,
			{ webhookSlackToFrom: 'yes please' },
			'webhookSlackToFrom must be one of true, false or null',
			'webhookSlackToFrom',
		],
		[
			'POST',
			'/api/outgoing-messages',
			{ from: inbox, to: [{}], text: 'x' },
			'to must be one address, a comma-separated list of addresses, or an array of at most 50 addresses',
			'to',
		],
		// A value of the right kind that is wrong in one way: that way.
		[
			'PUT',
			`/api/addresses/${enc(inbox)}`,
			{ webhook: `https://example.org/${'x'.repeat(2048)}` },
			'webhook must be at most 2048 characters long',
			'webhook',
		],
		['POST', `/api/addresses/${enc(inbox)}/webhooks`, { url: 'example.org/hook' }, 'url must be an http(s) URL', 'url'],
		[
			'POST',
			`/api/addresses/${enc(inbox)}/webhooks`,
			{ url: 'https://example.org/', filter: { to: 'x' } },
			'filter.to is not a field of filter; its fields are from, subject, hasAttachments and authenticated',
			'filter.to',
		],
		['POST', '/api/outgoing-messages', { to: 'a@b.test', text: 'x' }, 'from is required', 'from'],
		[
			'POST',
			'/api/outgoing-messages',
			{ from: inbox, to: 'a@b.test', text: 'x', attachments: [{ filename: 'a.pdf', content: 'AA==', contentType: 'pdf' }] },
			'attachments[0].contentType must be a MIME type such as application/pdf',
			'attachments[0].contentType',
		],
		['POST', '/api/private-addresses-bulk', { addresses: [] }, 'addresses must have at least 1 item', 'addresses'],
		[
			'PUT',
			'/api/domains/validation.test',
			{ catchAll: 'nope' },
			'catchAll must be an address of the domain, or null or "" to remove the catch-all address',
			'catchAll',
		],
		// Enumerations list what they take.
		['PUT', message('/folder/drafts'), undefined, '"drafts" is not a folder: inbox, all, spam or trash', undefined],
		[
			'GET',
			message('/headers?messageHeadersFormat=xml'),
			undefined,
			'messageHeadersFormat must be one of json, json-ordered or plain',
			'messageHeadersFormat',
		],
		['GET', '/api/webhook-activity?status=lost', undefined, 'status must be one of delivered, retrying, failed or refused', 'status'],
		['GET', `/api/body/${enc(inbox)}/:id?images=2`, undefined, 'images must be 0 or 1', 'images'],
		// Other kinds, ranges and forms.
		['PUT', message('/read/maybe'), undefined, '"maybe" is not true or false, for read or unread', undefined],
		[
			'GET',
			`/api/addresses/${enc(inbox)}/messages/not!an!id`,
			undefined,
			'"not!an!id" is not a message id: 1 to 64 letters, digits, _ or -',
			undefined,
		],
		['GET', `/api/addresses/${enc(inbox)}/messages?limit=5000`, undefined, 'limit must be at most 1000', 'limit'],
		['GET', `/api/addresses/${enc(inbox)}/messages?limit=many`, undefined, 'limit must be a whole number', 'limit'],
		[
			'GET',
			`/api/addresses/${enc(inbox)}/messages?until=yesterday`,
			undefined,
			'until must be an ISO 8601 date-time with a time zone, such as 2026-11-22T10:22:07.601Z',
			'until',
		],
		[
			'GET',
			`/api/addresses/${enc(inbox)}/wait-for-message?subjct=x`,
			undefined,
			'subjct is not a query parameter of this request; its parameters are from, subject, text, since and timeout',
			'subjct',
		],
		['PUT', message('/labels/' + 'x'.repeat(65)), undefined, 'The label in the path must be at most 64 characters long', undefined],
		['GET', '/api/addresses/alice/messages', undefined, '"alice" is not an email address', undefined],
		// A field no route takes (a typo) is named, with the fields the object does take.
		[
			'PUT',
			`/api/private-address-forwarding/${enc(inbox)}`,
			{ webhok: 'https://example.org/hook' },
			'webhok is not a field of this request; its fields are webhook, forward, enablews, info, webhookSlack and webhookSlackToFrom',
			'webhok',
		],
		['POST', '/api/me/keys', { lable: 'CI' }, 'lable is not a field of this request; its only field is label', 'lable'],
		[
			'POST',
			'/api/private-addresses-bulk',
			{ addresses: ['a@validation.test'], owner: 'me' },
			'owner is not a field of this request; its only field is addresses',
			'owner',
		],
		[
			'PUT',
			'/api/domains/validation.test',
			{ catchAll: '', catchall: '' },
			'catchall is not a field of this request; its only field is catchAll',
			'catchall',
		],
		[
			'POST',
			`/api/addresses/${enc(inbox)}/webhooks`,
			{ url: 'https://example.org/', filtr: { subject: 'x' } },
			'filtr is not a field of this request; its fields are url and filter',
			'filtr',
		],
		[
			'POST',
			'/api/outgoing-messages',
			{ from: inbox, to: 'a@b.test', text: 'x', attachments: [{ filename: 'a.pdf', content: 'AA==', type: 'application/pdf' }] },
			'attachments[0].type is not a field of attachments[0]; its fields are filename, contentType, content and contentId',
			'attachments[0].type',
		],
	] as const)('%s %s %j: %s', async (method, path, body, expected, field) => {
		const answer = await call(method, path.replace(':id', messageId), body);
		expect(answer).toMatchObject({ status: 400, body: { error: 'Bad Request', message: expected } });
		expect(answer.body.field).toBe(field);
	});

	it.each([
		[
			'PUT',
			`/api/addresses/${enc(inbox)}`,
			{ forward: inbox },
			`forward cannot be ${inbox}: an address does not forward to itself`,
			'forward',
		],
		[
			'POST',
			'/api/private-addresses-bulk',
			{ addresses: ['fine@validation.test', 'nope'] },
			'addresses[1] "nope" is not an email address',
			'addresses[1]',
		],
		['GET', '/api/inbox-search', undefined, 'query (or q) is required', 'query'],
		[
			'GET',
			`/api/addresses/${enc(inbox)}/wait-for-message?since=2016-12-31T23:59:60Z`,
			undefined,
			'since "2016-12-31T23:59:60Z" is not a time Mailroom can compare with',
			'since',
		],
		[
			'POST',
			'/api/outgoing-messages',
			{ from: inbox, to: 'a@b.test', text: 'x', attachments: [{ filename: 'a.pdf', content: 'A' }] },
			'attachments[0].content is not base64 (RFC 4648: A-Z, a-z, 0-9, + and /, padded with = to a multiple of 4 characters, no line breaks)',
			'attachments[0].content',
		],
	] as const)("the routes' own checks too: %s %s %j: %s", async (method, path, body, expected, field) => {
		expect(await call(method, path, body)).toMatchObject({ status: 400, body: { error: 'Bad Request', message: expected, field } });
	});

	it('never answers with what the validator says on its own, on any route, for any parameter or body field', async () => {
		const { body: doc } = await server.api<OpenApiDocument>('/openapi.json');
		const values: Record<string, string> = { email: enc(inbox), messageId, domain: 'validation.test' };
		const problems: string[] = [];
		let answered400 = 0;
		/** `isField`: the check is of a body field or query parameter, so a 400 names one (the one sent wrong, or one left out). */
		const check = async (method: string, path: string, body: unknown, what: string, isField = false) => {
			const answer = await call(method, path, body);
			if (answer.status !== 400) return;
			answered400++;
			const { message: text, field } = answer.body;
			if (field !== undefined && !text.startsWith(field)) problems.push(`${what}: "${text}" does not start with its field ${field}`);
			if (isField && field === undefined) problems.push(`${what}: "${text}" names no field`);
			// A path parameter is named by its value or in words, and is no field of a form.
			if (!isField && field === undefined && !/^("|The [a-z ]+ in the path |A body is required)/.test(text))
				problems.push(`${what}: "${text}" names neither the value nor the parameter`);
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
							true,
						);
					}
				}
				const schema = operation.requestBody?.content?.['application/json']?.schema;
				if (!schema || method === 'get') continue;
				const resolved = schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()!] : schema;
				const whole = await call(method.toUpperCase(), path, []);
				if (whole.status === 400) answered400++;
				if (whole.status === 400 && whole.body.message !== 'The body must be a JSON object')
					problems.push(`${method} ${template} body []: "${whole.body.message}"`);
				for (const field of Object.keys(resolved.properties ?? {}))
					await check(method.toUpperCase(), path, { [field]: { not: ['valid'] } }, `${method} ${template} body ${field}`, true);
			}
		}
		expect(problems).toEqual([]);
		expect(answered400).toBeGreaterThan(60); // the sweep did reach the validators
	});
});
