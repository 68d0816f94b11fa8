import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ErrorBody } from 'mailroom-server/dist/schemas/error';
import { nodeJson, runNode, startNodeFixture, type NodeFixture } from '../../helpers/n8n';

/** Requests of the nodes with the mailroomApi credential, and how an error answer comes out of them. */
describe('mailroomRequest', () => {
	let fixture: NodeFixture;
	beforeAll(async () => {
		fixture = await startNodeFixture({ credits: 10, trailingSlash: true });
	});
	afterAll(() => fixture.stop());

	it("fails with a NodeApiError carrying the server's message and status", async () => {
		const { server, n8n, account } = fixture;
		const error = await nodeJson(n8n, {
			resource: 'message',
			operation: 'getRaw',
			email: 'text@example.test',
			messageId: 'NoSuchMessage1',
		}).catch((e: unknown) => e);
		expect(error).toMatchObject({ name: 'NodeApiError', httpCode: '404', description: expect.stringMatching(/^HTTP 404/) });
		const answer = await server.api<ErrorBody>(`/api/raw/text%40example.test/NoSuchMessage1`, { key: account.key });
		expect((error as Error).message).toBe(answer.body.message);
	});

	it('a Base URL pasted with /api, /api/ or / reaches the same server', async () => {
		const { server, n8n, account } = fixture;
		for (const baseUrl of [`${server.httpUrl}/api`, `${server.httpUrl}/api/`, `${server.httpUrl}//`, ` ${server.httpUrl}/API `]) {
			const [me] = await nodeJson(
				n8n,
				{ resource: 'account', operation: 'get' },
				{ credentials: { mailroomApi: { apiKey: account.key, baseUrl } } },
			);
			expect(me).toMatchObject({ _id: account.id });
		}
	});

	it('a wrong API key fails with the 401', async () => {
		const { server, n8n } = fixture;
		await expect(
			runNode(
				n8n,
				{ resource: 'message', operation: 'getAll', email: 'list@example.test', limit: 1 },
				{ credentials: { mailroomApi: { apiKey: 'mr_wrong', baseUrl: server.httpUrl } } },
			),
		).rejects.toMatchObject({ name: 'NodeApiError', httpCode: '401' });
	});

	it("a request of a stopped execution is aborted: it fails with n8n's NodeOperationError, not as an API error", async () => {
		const stopped = new AbortController();
		stopped.abort();
		await expect(runNode(fixture.n8n, { resource: 'account', operation: 'get' }, { abortSignal: stopped.signal })).rejects.toMatchObject({
			name: 'NodeOperationError',
			message: 'The execution was stopped',
		});
	});
});

/** The API's per-key rate limit (--rate-limit-key): a 429 is waited out when its Retry-After allows, else reported at once. */
describe('mailroomRequest under the rate limit (429)', () => {
	let limited: NodeFixture;
	beforeAll(async () => {
		limited = await startNodeFixture({ account: 'busy', config: { rateLimitKey: 3 } });
	});
	afterAll(() => limited.stop());

	it('retries after the Retry-After of a 429, and fails at once when the server asks to wait longer than 30 s', async () => {
		const { server, n8n, account } = limited;
		// A real HTTP front: its first answer is a 429 with Retry-After: 1 (the server's own come near the end of its minute);
		// every other request goes to the server.
		const answered: number[] = [];
		const front = http.createServer((req, res) => {
			if (answered.length === 0) {
				answered.push(429);
				res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
				res.end(JSON.stringify({ statusCode: 429, error: 'Too Many Requests', message: 'Rate limit reached; retry in 1 second' }));
				return;
			}
			const upstream = http.request(new URL(req.url!, server.httpUrl), { method: req.method, headers: req.headers }, (answer) => {
				answered.push(answer.statusCode!);
				res.writeHead(answer.statusCode!, answer.headers);
				answer.pipe(res);
			});
			req.pipe(upstream);
		});
		await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
		try {
			const baseUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
			const started = Date.now();
			const [me] = await nodeJson(
				n8n,
				{ resource: 'account', operation: 'get' },
				{ credentials: { mailroomApi: { apiKey: account.key, baseUrl } } },
			);
			expect(me).toMatchObject({ _id: account.id });
			expect(answered).toEqual([429, 200]);
			expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
		} finally {
			await new Promise((resolve) => front.close(resolve));
		}

		// The real server's limit of 3 a minute, used up: its Retry-After is most of a minute, longer than the node waits.
		for (let i = 0; i < 5 && (await server.api('/api/me', { key: account.key })).status !== 429; i++);
		expect((await server.api('/api/me', { key: account.key })).status).toBe(429);
		const started = Date.now();
		const error = await nodeJson(n8n, { resource: 'account', operation: 'get' }).catch((e: unknown) => e);
		expect(error).toMatchObject({ name: 'NodeApiError', httpCode: '429' });
		expect((error as Error).message).toMatch(/^Rate limit of 3 requests per minute reached; retry in (1 minute|\d+ seconds)$/);
		expect(Date.now() - started).toBeLessThan(5000);
	});
});
