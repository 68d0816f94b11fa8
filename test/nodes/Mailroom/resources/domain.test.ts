import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INodeParameters } from 'n8n-workflow';
import { sendMail } from '../../../helpers/messages';
import { nodeJson, startNodeFixture, type NodeFixture } from '../../../helpers/n8n';

/** The Domain operations in n8n-core's real ExecuteContext against a real server. */
describe('Mailroom node: Domain', () => {
	let fixture: NodeFixture;
	beforeAll(async () => {
		fixture = await startNodeFixture({ trailingSlash: true });
	});
	afterAll(() => fixture.stop());

	const domain = (operation: string, parameters: INodeParameters = {}) =>
		nodeJson(fixture.n8n, { resource: 'domain', operation, ...parameters });

	it('Domain Get Many, Get and Get Messages (paged)', async () => {
		const { server, account } = fixture;
		await server.domains.claim('node.test', account.id);
		await server.domains.claim('another.test', account.id);
		for (let i = 0; i < 5; i++) await sendMail(server, { to: `n${i}@node.test`, subject: `message ${i}` });

		expect((await domain('getAll', { returnAll: true })).map((d) => d._id)).toEqual(['another.test', 'node.test']);
		const [one] = await domain('get', { domain: 'Node.test' });
		expect(one).toMatchObject({ domain: { _id: 'node.test', owner: account.id, catchAll: null }, totalMessages: 5, catchAllAddress: null });

		const newest = await domain('getMessages', { domain: 'node.test', returnAll: false, limit: 2 });
		expect(newest.map((m) => m.subject)).toEqual(['message 4', 'message 3']);
		// Return All walks the pages (1000 each) until the end.
		const all = await domain('getMessages', { domain: 'node.test', returnAll: true });
		expect(all.map((m) => m.subject)).toEqual(['message 4', 'message 3', 'message 2', 'message 1', 'message 0']);

		await expect(domain('get', { domain: 'unclaimed.test' })).rejects.toMatchObject({ httpCode: '404' });
	});
});
