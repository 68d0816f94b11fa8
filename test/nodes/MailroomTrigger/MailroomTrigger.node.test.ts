import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { WebhookDelivery } from 'mailroom-server/dist/schemas/webhook';
import { sendMail } from '../../helpers/messages';
import { forwardingOf } from '../../helpers/addresses';
import { waitFor } from '../../helpers/webhook-receiver';
import { PAYLOAD_FIELDS, webhookSecret } from '../../helpers/webhooks';
import { loadedNode, nodeDescription, postJson, signed, startNodeFixture, type NodeFixture } from '../../helpers/n8n';

/**
 * Mailroom Trigger in n8n-core's real HookContext (checkExists/create/delete) and WebhookContext
 * (webhook()) against a real server that delivers real SMTP mail to the trigger's webhook URL.
 */
describe('Mailroom Trigger', () => {
	let fixture: NodeFixture;
	beforeAll(async () => {
		fixture = await startNodeFixture();
	});
	afterAll(() => fixture.stop());

	const record = (email: string) => forwardingOf(fixture.server, fixture.account.key, email);
	const secret = () => webhookSecret(fixture.server, fixture.account.key);

	describe('as n8n loads it', () => {
		it('is a webhook trigger with the three webhook methods', () => {
			const d = nodeDescription(fixture.n8n.loader, 'mailroomTrigger');
			expect(d).toMatchObject({ displayName: 'Mailroom Trigger', group: ['trigger'], inputs: [], outputs: ['main'] });
			expect(d.webhooks).toEqual([{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }]);
			const node = loadedNode(fixture.n8n.loader, 'mailroomTrigger');
			const methods = node.webhookMethods!.default;
			expect(Object.keys(methods ?? {}).sort()).toEqual(['checkExists', 'create', 'delete']);
			expect(typeof node.webhook).toBe('function');
		});

		it('asks for the address, reserves it by default and can simplify', () => {
			const d = nodeDescription(fixture.n8n.loader, 'mailroomTrigger');
			expect(d.properties.map((p) => [p.name, p.type, p.default])).toEqual([
				['email', 'string', ''],
				['reserveAddress', 'boolean', true],
				['simplify', 'boolean', false],
			]);
			expect(d.properties.filter((p) => !p.description?.trim())).toEqual([]);
		});
	});

	describe('against a real server', () => {
		it('create reserves the address and points its webhook at n8n; checkExists; delivery; delete clears it', async () => {
			const { server, n8n, account } = fixture;
			const trigger = await n8n.trigger('mailroomTrigger', { email: ' Orders@Example.test ' });
			expect(trigger.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook\/test-webhook-id\/webhook$/);
			expect(await trigger.hook('checkExists')).toBe(false);

			expect(await trigger.hook('create')).toBe(true);
			expect(await record('orders@example.test')).toMatchObject({ _id: 'orders@example.test', owner: account.id, webhook: trigger.url });
			expect(trigger.staticData()).toEqual({ email: 'Orders@Example.test', webhookUrl: trigger.url, secret: await secret() });
			expect(await trigger.hook('checkExists')).toBe(true);

			// Real mail; the server signs the delivery and webhook() verifies it. Simplify is off: the payload unchanged.
			const [id] = await sendMail(server, {
				to: 'orders@example.test',
				from: 'Alice <alice@sender.test>',
				subject: 'Order 1',
				text: 'two boxes',
			});
			const [run] = await waitFor(() => (trigger.runs.length > 0 ? trigger.runs : undefined), 'the delivery');
			expect(run).toEqual([
				[
					{
						json: expect.objectContaining({
							_id: id,
							subject: 'Order 1',
							inbox: 'orders@example.test',
							from: [{ address: 'alice@sender.test', name: 'Alice' }],
						}),
					},
				],
			]);
			const [stored] = (await server.api<MessageRecord[]>(`/api/addresses/orders%40example.test/messages`, { key: account.key })).body;
			expect(Object.keys(run[0][0].json).sort()).toEqual([...PAYLOAD_FIELDS].sort());
			expect(run[0][0].json).toMatchObject({ _id: stored._id, received: stored.received, text: expect.stringContaining('two boxes') });
			const delivery = (
				await server.api<WebhookDelivery>(`/api/addresses/orders%40example.test/messages/${id}/webhook-status`, { key: account.key })
			).body;
			expect(delivery).toMatchObject({ status: 'delivered', lastStatusCode: 200 });

			expect(await trigger.hook('delete')).toBe(true);
			expect((await record('orders@example.test')).webhook).toBeNull();
			expect(trigger.staticData()).toEqual({});
			expect(await trigger.hook('checkExists')).toBe(false);
		});

		it('Simplify outputs _id, from, to, subject, text and received', async () => {
			const trigger = await fixture.n8n.trigger('mailroomTrigger', { email: 'simple@example.test', simplify: true });
			await trigger.hook('create');
			const [id] = await sendMail(fixture.server, { to: 'simple@example.test', from: 'bob@sender.test', subject: 'Hi', text: 'short' });
			const [run] = await waitFor(() => (trigger.runs.length > 0 ? trigger.runs : undefined), 'the delivery');
			expect(run).toEqual([
				[
					{
						json: {
							_id: id,
							from: [{ address: 'bob@sender.test', name: '' }],
							to: [{ address: 'simple@example.test', name: '' }],
							subject: 'Hi',
							text: 'short\n',
							received: expect.any(String),
						},
					},
				],
			]);
			await trigger.hook('delete');
		});

		it('"Listen for test event" sets the test webhook URL, gets a delivery, and clears it', async () => {
			const trigger = await fixture.n8n.trigger('mailroomTrigger', { email: 'listen@example.test', simplify: true }, { test: true });
			expect(trigger.url).toMatch(/\/webhook-test\/test-webhook-id\/webhook$/);
			await trigger.hook('create', 'manual');
			expect(await record('listen@example.test')).toMatchObject({ owner: fixture.account.id, webhook: trigger.url });
			const [id] = await sendMail(fixture.server, { to: 'listen@example.test', subject: 'test event' });
			const [run] = await waitFor(() => (trigger.runs.length > 0 ? trigger.runs : undefined), 'the delivery');
			expect(run[0][0].json).toMatchObject({ _id: id, subject: 'test event' });
			await trigger.hook('delete', 'manual');
			expect((await record('listen@example.test')).webhook).toBeNull();
		});

		it('"Listen for test event" on an active workflow gives the address back to the production URL when the test ends', async () => {
			const { server, n8n } = fixture;
			const production = await n8n.trigger('mailroomTrigger', { email: 'both@example.test', simplify: true });
			await production.hook('create');
			const listening = await n8n.trigger('mailroomTrigger', { email: 'both@example.test', simplify: true }, { test: true });
			expect(await listening.hook('checkExists', 'manual')).toBe(false);
			await listening.hook('create', 'manual');
			expect((await record('both@example.test')).webhook).toBe(listening.url);
			await sendMail(server, { to: 'both@example.test', subject: 'during the test' });
			await waitFor(() => listening.runs.length > 0, 'the test delivery');

			await listening.hook('delete', 'manual');
			expect((await record('both@example.test')).webhook).toBe(production.url);
			await sendMail(server, { to: 'both@example.test', subject: 'after the test' });
			const [run] = await waitFor(() => (production.runs.length > 0 ? production.runs : undefined), 'the production delivery');
			expect(run[0][0].json.subject).toBe('after the test');
			expect(listening.runs).toHaveLength(1);

			// The production activation never restores anything: deactivating clears the webhook.
			await production.hook('delete');
			expect((await record('both@example.test')).webhook).toBeNull();
		});

		it('after the secret is rotated past its overlap, webhook() fetches the new one once and keeps it', async () => {
			const { server, n8n, account } = fixture;
			const trigger = await n8n.trigger('mailroomTrigger', { email: 'rotated@example.test', simplify: true });
			await trigger.hook('create');
			const first = trigger.staticData().secret as string;
			// Two rotations: deliveries are signed with the newest secret and the one before, not the first.
			await server.api('/api/webhook-secret/rotate', { key: account.key, method: 'POST' });
			const newest = (await server.api<{ secret: string }>('/api/webhook-secret/rotate', { key: account.key, method: 'POST' })).body.secret;
			expect(newest).not.toBe(first);

			const [id] = await sendMail(server, { to: 'rotated@example.test', subject: 'after rotation' });
			const [run] = await waitFor(() => (trigger.runs.length > 0 ? trigger.runs : undefined), 'the delivery');
			expect(run[0][0].json).toMatchObject({ _id: id, subject: 'after rotation' });
			expect(trigger.staticData().secret).toBe(newest);
			// A forged call after that still fails (the secret is fetched again, and does not match either).
			const body = JSON.stringify({ _id: 'Forged0000000002' });
			expect((await postJson(trigger.url, body, signed(first, body))).status).toBe(401);
			await trigger.hook('delete');
		});

		it("on a domain's catch-all address it gets the mail of every address of the domain", async () => {
			const { server, n8n, account } = fixture;
			server.domains.claim('shop.test', account.id);
			await server.api('/api/domains/shop.test', { key: account.key, method: 'PUT', body: { catchAll: 'all@shop.test' } });
			const trigger = await n8n.trigger('mailroomTrigger', { email: 'all@shop.test', simplify: true });
			await trigger.hook('create');
			const [id] = await sendMail(server, { to: 'anything-123@shop.test', subject: 'to the domain' });
			const [run] = await waitFor(() => (trigger.runs.length > 0 ? trigger.runs : undefined), 'the delivery');
			expect(run[0][0].json).toMatchObject({ _id: id, to: [{ address: 'anything-123@shop.test' }], subject: 'to the domain' });
			await trigger.hook('delete');
			expect((await record('all@shop.test')).webhook).toBeNull();
		});

		it('delete leaves a webhook that no longer points to this workflow alone', async () => {
			const { server, n8n, account } = fixture;
			const trigger = await n8n.trigger('mailroomTrigger', { email: 'moved@example.test' });
			await trigger.hook('create');
			await server.api('/api/private-address-forwarding/moved%40example.test', {
				key: account.key,
				method: 'PUT',
				body: { webhook: 'https://elsewhere.example.org/hook' },
			});
			expect(await trigger.hook('checkExists')).toBe(false);
			expect(await trigger.hook('delete')).toBe(true);
			expect((await record('moved@example.test')).webhook).toBe('https://elsewhere.example.org/hook');
		});

		it('without Reserve Address an address the account does not own fails clearly; an address of another account too', async () => {
			const { server, n8n, account } = fixture;
			const off = await n8n.trigger('mailroomTrigger', { email: 'free@example.test', reserveAddress: false });
			await expect(off.hook('create')).rejects.toMatchObject({ message: 'Your account does not own free@example.test' });
			expect((await server.api('/api/addresses/free%40example.test', { key: account.key })).status).toBe(404);

			const bob = server.createAccount('bob');
			await server.api('/api/addresses/bobs%40example.test', {
				key: bob.key,
				method: 'POST',
				body: { webhook: 'https://bob.example.org/hook' },
			});
			const foreign = await n8n.trigger('mailroomTrigger', { email: 'bobs@example.test' });
			expect(await foreign.hook('checkExists')).toBe(false);
			await expect(foreign.hook('create')).rejects.toMatchObject({ httpCode: '403' });
			expect(await foreign.hook('delete')).toBe(true);
			expect((await forwardingOf(server, bob.key, 'bobs@example.test')).webhook).toBe('https://bob.example.org/hook');
		});
	});
});
