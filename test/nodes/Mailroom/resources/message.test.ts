import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INodeParameters } from 'n8n-workflow';
import { sendMail } from '../../../helpers/messages';
import { nodeDescription, nodeJson, property, startNodeFixture, type NodeFixture } from '../../../helpers/n8n';

/** The Message resource's listing and searching, in n8n-core's real ExecuteContext against a real server. */
describe('Mailroom node: Message', () => {
	let fixture: NodeFixture;
	beforeAll(async () => {
		fixture = await startNodeFixture({ account: 'searcher', trailingSlash: true });
		for (const inbox of ['billing@example.test', 'sales@example.test']) await fixture.server.addresses.reserve(inbox, fixture.account.id);
	});
	afterAll(() => fixture.stop());

	const message = (operation: string, parameters: INodeParameters) =>
		nodeJson(fixture.n8n, { resource: 'message', operation, ...parameters });

	it('limits Get Many to the largest page of the API and Search to the most the server finds, Get Thread not', () => {
		const limits = nodeDescription(fixture.n8n.loader, 'mailroom')
			.properties.filter((p) => p.name === 'limit' && p.displayOptions?.show?.resource?.includes('message'))
			.map((p) => [p.displayOptions!.show!.operation, p.typeOptions]);
		expect(limits).toEqual([
			[['getAll'], { minValue: 1, maxValue: 1000 }],
			[['search'], { minValue: 1, maxValue: 100 }],
			// Get Thread pages through the thread as far as Limit asks.
			[['getThread'], { minValue: 1 }],
		]);
		expect(property(nodeDescription(fixture.n8n.loader, 'mailroom').properties, 'query')!.required).toBe(true);
	});

	it("Search: the account's messages matching the query (words of sender, recipients, subject or body, operators), newest first, up to Limit", async () => {
		const { server } = fixture;
		const [first] = await sendMail(server, { to: 'billing@example.test', subject: 'Invoice 1' });
		const [second] = await sendMail(server, { to: 'sales@example.test', from: 'invoices@vendor.test', subject: 'Hello' });
		await sendMail(server, { to: 'billing@example.test', subject: 'Newsletter' });
		// Another account's inbox (here: nobody's) is never searched.
		await sendMail(server, { to: 'stranger@example.test', subject: 'Invoice 2' });

		const all = await message('search', { query: ' INVOICE ', returnAll: true });
		expect(all.map((m) => m._id)).toEqual([second, first]);
		expect(all[1]).toMatchObject({ inbox: 'billing@example.test', subject: 'Invoice 1', from: [{ address: 'sender@sender.test' }] });
		expect((await message('search', { query: 'invoice', limit: 1 })).map((m) => m._id)).toEqual([second]);
		expect(await message('search', { query: 'nothing like this' })).toEqual([]);
		expect((await message('search', { query: 'invoice -from:vendor is:unread' })).map((m) => m._id)).toEqual([first]);
	});
});
