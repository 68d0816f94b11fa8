import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INodeParameters } from 'n8n-workflow';
import nodemailer from 'nodemailer';
import { sendMail } from '../../helpers/messages';
import { nodeJson, startNodeFixture, type NodeFixture } from '../../helpers/n8n';

/** Get Many of the Message resource: a listing read page by page. */
describe('Mailroom node: Get Many of a message listing', () => {
	let fixture: NodeFixture;
	beforeAll(async () => {
		fixture = await startNodeFixture({ credits: 10, trailingSlash: true });
	});
	afterAll(() => fixture.stop());

	const getAll = (parameters: INodeParameters) => nodeJson(fixture.n8n, { resource: 'message', operation: 'getAll', ...parameters });

	it('Get Many: the newest messages up to Limit, or all of them', async () => {
		for (const subject of ['one', 'two', 'three']) await sendMail(fixture.server, { to: 'list@example.test', subject });
		expect((await getAll({ email: 'list@example.test', limit: 2 })).map((m) => m.subject)).toEqual(['three', 'two']);
		const all = await getAll({ email: 'List@Example.test', returnAll: true });
		expect(all.map((m) => m.subject)).toEqual(['three', 'two', 'one']);
		expect(all[0]).toMatchObject({ _id: expect.any(String), inbox: 'list@example.test', from: [{ address: 'sender@sender.test' }] });
	});

	it('Get Many with Return All pages past the 1000 a listing returns at once, and past the 100 of a search with filters', async () => {
		const transport = nodemailer.createTransport({
			host: '127.0.0.1',
			port: fixture.server.smtpPort,
			secure: false,
			ignoreTLS: true,
			pool: true,
			maxConnections: 8,
			maxMessages: Infinity,
		});
		try {
			await Promise.all(
				Array.from({ length: 1005 }, (_, i) =>
					transport.sendMail({ from: 'bulk@sender.test', to: 'bulk@example.test', subject: `bulk ${i}`, text: 'x' }),
				),
			);
		} finally {
			transport.close();
		}
		// The records as listed: a simplified item costs requests of its own (message-lists.test.ts).
		const all = await getAll({ email: 'bulk@example.test', returnAll: true, simplify: false });
		expect(all).toHaveLength(1005);
		expect(new Set(all.map((m) => m._id)).size).toBe(1005);
		expect(new Set(all.map((m) => m.subject))).toEqual(new Set(Array.from({ length: 1005 }, (_, i) => `bulk ${i}`)));
		const received = all.map((m) => m.received as string);
		expect(received).toEqual([...received].sort().reverse());
		expect(await getAll({ email: 'bulk@example.test', limit: 1000, simplify: false })).toHaveLength(1000);

		// With filters, Get Many pages through search, 100 messages a time; search covers the account's own addresses.
		await fixture.server.addresses.reserve('bulk@example.test', fixture.account.id);
		const filtered = (parameters: INodeParameters) =>
			getAll({ email: 'bulk@example.test', simplify: false, filters: { sender: 'bulk@' }, ...parameters });
		expect(await filtered({ returnAll: true })).toEqual(all);
		expect(await filtered({ limit: 101 })).toEqual(all.slice(0, 101));
	});
});
