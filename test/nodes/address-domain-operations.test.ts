import { startTestMailroom, type TestMailroom } from '../helpers/mailroom';
import { sendMail } from '../helpers/messages';
import { createN8nHarness, type N8nHarness } from '../helpers/n8n';

describe('Mailroom node: Address and Domain operations against a real server', () => {
	let server: TestMailroom;
	let n8n: N8nHarness;
	let ann: { id: string; key: string };
	beforeAll(async () => {
		server = await startTestMailroom();
		ann = server.createAccount('ann');
		n8n = await createN8nHarness({ credentials: { mailroomApi: { baseUrl: `${server.httpUrl}/`, apiKey: ann.key } } });
	});
	afterAll(async () => {
		await n8n.close();
		await server.stop();
	});

	const run = async (parameters: Record<string, unknown>) =>
		(await n8n.execute('mailroom', parameters as never))[0].map((item) => item.json);

	const address = (operation: string, parameters: Record<string, unknown> = {}) => run({ resource: 'address', operation, ...parameters });
	const domain = (operation: string, parameters: Record<string, unknown> = {}) => run({ resource: 'domain', operation, ...parameters });

	it('Reserve with settings, Get, Update, Get Many and Release with its messages', async () => {
		const [reserved] = await address('reserve', {
			email: 'Node@example.test',
			settings: { webhook: 'https://hooks.example.org/in', info: 'from n8n' },
		});
		expect(reserved).toMatchObject({ _id: 'node@example.test', owner: ann.id, webhook: 'https://hooks.example.org/in', info: 'from n8n' });

		const [updated] = await address('update', {
			email: 'node@example.test',
			updateFields: {
				webhook: '',
				forward: 'elsewhere@example.test',
				enablews: true,
				webhookSlack: 'https://hooks.slack.test/x',
				webhookSlackToFrom: true,
			},
		});
		expect(updated).toMatchObject({
			webhook: null,
			forward: 'elsewhere@example.test',
			enablews: true,
			webhookSlack: 'https://hooks.slack.test/x',
			webhookSlackToFrom: true,
			info: 'from n8n',
		});
		expect(await address('get', { email: 'node@example.test' })).toEqual([updated]);

		await address('reserve', { email: 'second@example.test' });
		const all = await address('getAll', { returnAll: true });
		expect(all.map((record) => record._id)).toEqual(['node@example.test', 'second@example.test']);
		expect(await address('getAll', { returnAll: false, limit: 1 })).toHaveLength(1);

		await sendMail(server, { to: 'node@example.test' });
		const [released] = await address('release', { email: 'node@example.test', deleteMessages: true });
		expect(released._id).toBe('node@example.test');
		expect((await server.api('/api/addresses/node%40example.test/messages')).body).toEqual([]);
		expect((await address('getAll', { returnAll: true })).map((record) => record._id)).toEqual(['second@example.test']);
	});

	it("fails with the server's message and status", async () => {
		await expect(address('get', { email: 'unreserved@example.test' })).rejects.toMatchObject({
			httpCode: '404',
			message: expect.stringMatching(/not reserved/),
		});
		await expect(
			address('update', { email: 'second@example.test', updateFields: { forward: 'second@example.test' } }),
		).rejects.toMatchObject({
			httpCode: '400',
			message: expect.stringMatching(/itself/),
		});
	});

	it('Domain Get Many, Get and Get Messages (paged)', async () => {
		server.domains.claim('node.test', ann.id);
		server.domains.claim('another.test', ann.id);
		for (let i = 0; i < 5; i++) await sendMail(server, { to: `n${i}@node.test`, subject: `message ${i}` });

		expect((await domain('getAll', { returnAll: true })).map((d) => d._id)).toEqual(['another.test', 'node.test']);
		const [one] = await domain('get', { domain: 'Node.test' });
		expect(one).toMatchObject({ domain: { _id: 'node.test', owner: ann.id, catchAll: null }, totalMessages: 5, catchAllAddress: null });

		const newest = await domain('getMessages', { domain: 'node.test', returnAll: false, limit: 2 });
		expect(newest.map((m) => m.subject)).toEqual(['message 4', 'message 3']);
		// Return All walks the pages (1000 each) until the end.
		const all = await domain('getMessages', { domain: 'node.test', returnAll: true });
		expect(all.map((m) => m.subject)).toEqual(['message 4', 'message 3', 'message 2', 'message 1', 'message 0']);

		await expect(domain('get', { domain: 'unclaimed.test' })).rejects.toMatchObject({ httpCode: '404' });
	});
});
