import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INodeParameters } from 'n8n-workflow';
import type { ErrorBody } from 'mailroom-server/dist/schemas/error';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { sendMail } from '../../../helpers/messages';
import { forwardingOf } from '../../../helpers/addresses';
import { nodeJson, startNodeFixture, type NodeFixture } from '../../../helpers/n8n';

/** The Address operations in n8n-core's real ExecuteContext against a real server. */
describe('Mailroom node: Address', () => {
	let fixture: NodeFixture;
	beforeAll(async () => {
		fixture = await startNodeFixture({ trailingSlash: true });
	});
	afterAll(() => fixture.stop());

	const address = (operation: string, parameters: INodeParameters = {}) =>
		nodeJson(fixture.n8n, { resource: 'address', operation, ...parameters });

	it('Reserve, Set Webhook Forwarding (set and clear), Release', async () => {
		const { server, account } = fixture;
		const [reserved] = await address('reserve', { email: 'Hooks@Example.test' });
		expect(reserved).toMatchObject({ _id: 'hooks@example.test', owner: account.id, webhook: null });

		const [set] = await address('setWebhook', { email: 'hooks@example.test', webhookUrl: ' https://hooks.example.org/mail ' });
		expect(set).toMatchObject({ _id: 'hooks@example.test', webhook: 'https://hooks.example.org/mail' });
		expect((await forwardingOf(server, account.key, 'hooks@example.test')).webhook).toBe('https://hooks.example.org/mail');

		const [cleared] = await address('setWebhook', { email: 'hooks@example.test', webhookUrl: '' });
		expect(cleared).toMatchObject({ _id: 'hooks@example.test', webhook: null });

		const [released] = await address('release', { email: 'hooks@example.test' });
		expect(released._id).toBe('hooks@example.test');
		expect((await server.api('/api/addresses/hooks%40example.test', { key: account.key })).status).toBe(404);
	});

	it("another account's address: the server's 403 and message", async () => {
		const { server, account } = fixture;
		const carol = await server.createAccount('carol');
		await server.api('/api/addresses/taken%40example.test', { key: carol.key, method: 'POST' });
		const answer = await server.api<ErrorBody>('/api/addresses/taken%40example.test', { key: account.key, method: 'POST' });
		await expect(address('reserve', { email: 'taken@example.test' })).rejects.toMatchObject({
			name: 'NodeApiError',
			httpCode: '403',
			message: answer.body.message,
		});
		await expect(address('setWebhook', { email: 'taken@example.test', webhookUrl: 'https://x.example.org/' })).rejects.toMatchObject({
			httpCode: '403',
		});
	});

	it('Reserve with settings, Get, Update, Get Many and Release with its messages', async () => {
		const { server, account } = fixture;
		const [reserved] = await address('reserve', {
			email: 'Node@example.test',
			settings: { webhook: 'https://hooks.example.org/in', info: 'from n8n' },
		});
		expect(reserved).toMatchObject({
			_id: 'node@example.test',
			owner: account.id,
			webhook: 'https://hooks.example.org/in',
			info: 'from n8n',
		});

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
		expect((await server.api<MessageRecord[]>('/api/addresses/node%40example.test/messages')).body).toEqual([]);
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
			message: expect.stringMatching(/^Forward To.*itself/),
		});
		await expect(address('update', { email: 'second@example.test', updateFields: { forward: 'no address' } })).rejects.toMatchObject({
			message: 'Forward To must be an email address, or null or "" to stop forwarding',
		});
	});
});
