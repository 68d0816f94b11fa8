import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import { startTestMailroom, type TestMailroom } from '../helpers/mailroom';
import { createN8nHarness, loadedCredential, NODES_DOCS, type N8nHarness } from '../helpers/n8n';

describe('Mailroom API credential', () => {
	let server: TestMailroom;
	let n8n: N8nHarness;
	beforeAll(async () => {
		server = await startTestMailroom();
		n8n = await createN8nHarness();
	});
	afterAll(async () => {
		await n8n.close();
		await server.stop();
	});

	describe('as n8n loads it', () => {
		it('has an API key kept as a password and a base URL defaulting to a local server', () => {
			const { properties } = loadedCredential(n8n.loader);
			expect(properties.map((p) => [p.name, p.type, p.default, p.typeOptions?.password ?? false])).toEqual([
				['apiKey', 'string', '', true],
				['baseUrl', 'string', 'http://localhost:3000', false],
			]);
		});

		it('sends the key in the Service-Key header and tests it against /api/me', () => {
			const c = loadedCredential(n8n.loader);
			expect(c.authenticate).toEqual({
				type: 'generic',
				properties: { headers: { 'Service-Key': '={{$credentials.apiKey}}' } },
			});
			const { request, rules } = c.test!;
			expect(request).toMatchObject({ url: '/api/me', method: 'GET' });
			// A 401 comes back as an answer, recognised by its body; any other error status fails the test.
			const { except } = request.ignoreHttpStatusErrors as { except: number[] };
			expect(except).not.toContain(401);
			expect(except).toEqual(expect.arrayContaining([400, 403, 404, 429, 500, 502, 503]));
			expect(rules).toEqual([
				{
					type: 'responseSuccessBody',
					properties: { key: 'error', value: 'Unauthorized', message: expect.stringMatching(/rejected this API key/) },
				},
				{
					type: 'responseSuccessBody',
					properties: { key: '_id', value: undefined, message: expect.stringMatching(/No Mailroom server/) },
				},
			]);
			expect(c.documentationUrl).toBe(NODES_DOCS);
		});
	});

	describe('its test (as n8n runs it)', () => {
		it('a good key connects; a wrong key gets a clear message', async () => {
			const { key } = await server.createAccount('dana');
			expect(await n8n.testCredential('mailroomApi', { apiKey: key, baseUrl: `${server.httpUrl}/` })).toEqual({
				status: 'OK',
				message: 'Connection successful!',
			});
			expect(await n8n.testCredential('mailroomApi', { apiKey: 'mr_wrong', baseUrl: server.httpUrl })).toEqual({
				status: 'Error',
				message: 'The Mailroom server rejected this API key (401 Unauthorized). Check the API key.',
			});
		});

		it('a Base URL with a trailing /api, /api/ or / connects', async () => {
			const { key } = await server.createAccount('erik');
			for (const baseUrl of [`${server.httpUrl}/api`, `${server.httpUrl}/api/`, `${server.httpUrl}/`]) {
				expect(await n8n.testCredential('mailroomApi', { apiKey: key, baseUrl })).toEqual({
					status: 'OK',
					message: 'Connection successful!',
				});
			}
		});

		it('a Base URL where another web server answers gets a clear message', async () => {
			const other = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"hello":"world"}'));
			await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
			try {
				const { port } = other.address() as { port: number };
				expect(await n8n.testCredential('mailroomApi', { apiKey: 'mr_x', baseUrl: `http://127.0.0.1:${port}` })).toEqual({
					status: 'Error',
					message: 'No Mailroom server answered at this Base URL (GET /api/me gave no account). Check the Base URL.',
				});
			} finally {
				await new Promise((resolve) => other.close(resolve));
			}
		});
	});
});
