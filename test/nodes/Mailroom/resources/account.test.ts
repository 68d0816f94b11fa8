import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { nodeJson, startNodeFixture, type NodeFixture } from '../../../helpers/n8n';

/** Account → Get in n8n-core's real ExecuteContext against a real server. */
describe('Mailroom node: Account', () => {
	let fixture: NodeFixture;
	beforeAll(async () => {
		fixture = await startNodeFixture({ account: 'dora', credits: 7 });
	});
	afterAll(() => fixture.stop());

	it("Get: the key's account with the outgoing credits it has left", async () => {
		const [account] = await nodeJson(fixture.n8n, { resource: 'account', operation: 'get' });
		expect(account).toEqual({ _id: fixture.account.id, name: 'dora', sendsRemaining: 7, admin: false, created: expect.any(String) });
	});
});
