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
