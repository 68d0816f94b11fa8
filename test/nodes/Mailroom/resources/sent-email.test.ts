import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { nodeJson, startNodeFixture, type NodeFixture } from '../../../helpers/n8n';

/** Sent Email → Get Many in n8n-core's real ExecuteContext against a real server. */
describe('Mailroom node: Sent Email', () => {
	let fixture: NodeFixture;
	beforeAll(async () => {
		fixture = await startNodeFixture({ account: 'erin', credits: 10 });
		await fixture.server.addresses.reserve('erin@example.test', fixture.account.id);
	});
	afterAll(() => fixture.stop());

	const sent = (parameters: Record<string, unknown>) =>
		nodeJson(fixture.n8n, { resource: 'sentEmail', operation: 'getAll', ...parameters });

	it('Get Many: the sent mail newest first with the status of each recipient, up to Limit, or all of it', async () => {
		expect(await sent({ returnAll: true })).toEqual([]);
		for (const subject of ['first', 'second', 'third']) {
			await nodeJson(fixture.n8n, {
				resource: 'email',
				operation: 'send',
				from: 'erin@example.test',
				to: 'frank@example.test',
				subject,
				text: 'hi',
				options: { ccEmail: 'gina@example.test' },
			});
		}
		const all = await sent({ returnAll: true });
		expect(all.map((message) => message.subject)).toEqual(['third', 'second', 'first']);
		expect(all[0]).toMatchObject({
			from: 'erin@example.test',
			to: ['frank@example.test'],
			cc: ['gina@example.test'],
			status: 'delivered',
			recipients: [
				{ address: 'frank@example.test', field: 'to', status: 'delivered' },
				{ address: 'gina@example.test', field: 'cc', status: 'delivered' },
			],
		});
		expect((await sent({ limit: 2 })).map((message) => message.subject)).toEqual(['third', 'second']);
	});
});
