import { Webhook } from 'standardwebhooks';
import { startTestMailroom, type TestMailroom } from '../helpers/mailroom';
import { sendMail } from '../helpers/messages';
import { createN8nHarness, type N8nHarness } from '../helpers/n8n';
import { waitFor } from '../helpers/webhook-receiver';

/**
 * Mailroom Trigger in n8n-core's real HookContext (checkExists/create/delete) and WebhookContext
 * (webhook()) against a real server that delivers real SMTP mail to the trigger's webhook URL.
 */
describe('Mailroom Trigger against a real server', () => {
	let server: TestMailroom;
	let n8n: N8nHarness;
	let ann: { id: string; key: string };
	beforeAll(async () => {
		server = await startTestMailroom();
		ann = server.createAccount('ann');
		n8n = await createN8nHarness({ credentials: { mailroomApi: { apiKey: ann.key, baseUrl: server.httpUrl } } });
	});
	afterAll(async () => {
		await n8n.close();
		await server.stop();
	});

	const record = async (email: string) => (await server.api(`/api/addresses/${encodeURIComponent(email)}`, { key: ann.key })).body;
	const secret = async () => (await server.api('/api/webhook-secret', { key: ann.key })).body.secret as string;
	const post = (url: string, body: string, headers: Record<string, string> = {}) =>
		fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }).then(async (r) => ({
			status: r.status,
			body: await r.json(),
		}));
	const signed = (whsec: string, body: string, time = new Date(), id = 'msg_test1') => ({
		'webhook-id': id,
		'webhook-timestamp': String(Math.floor(time.getTime() / 1000)),
		'webhook-signature': new Webhook(whsec).sign(id, time, body),
	});

	it('create reserves the address and points its webhook at n8n; checkExists; delivery; delete clears it', async () => {
		const trigger = await n8n.trigger('mailroomTrigger', { email: ' Orders@Example.test ' });
		expect(trigger.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook\/test-webhook-id\/webhook$/);
		expect(await trigger.hook('checkExists')).toBe(false);

		expect(await trigger.hook('create')).toBe(true);
		expect(await record('orders@example.test')).toMatchObject({ _id: 'orders@example.test', owner: ann.id, webhook: trigger.url });
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
		const stored = (await server.api(`/api/addresses/orders%40example.test/messages`, { key: ann.key })).body[0];
		expect(Object.keys(run[0][0].json).sort()).toEqual(
			[
				'text',
				'headers',
				'subject',
				'messageId',
				'priority',
				'from',
				'to',
				'date',
				'receivedDate',
				'originalInbox',
				'inbox',
				'domain',
				'encryptedInbox',
				'raw',
				'received',
				'_id',
				'ip',
			].sort(),
		);
		expect(run[0][0].json).toMatchObject({ _id: stored._id, received: stored.received, text: expect.stringContaining('two boxes') });
		const delivery = (await server.api(`/api/addresses/orders%40example.test/messages/${id}/webhook-status`, { key: ann.key })).body;
		expect(delivery).toMatchObject({ status: 'delivered', lastStatusCode: 200 });

		expect(await trigger.hook('delete')).toBe(true);
		expect((await record('orders@example.test')).webhook).toBeNull();
		expect(trigger.staticData()).toEqual({});
		expect(await trigger.hook('checkExists')).toBe(false);
	});

	it('Simplify outputs _id, from, to, subject, text and received', async () => {
		const trigger = await n8n.trigger('mailroomTrigger', { email: 'simple@example.test', simplify: true });
		await trigger.hook('create');
		const [id] = await sendMail(server, { to: 'simple@example.test', from: 'bob@sender.test', subject: 'Hi', text: 'short' });
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
		const trigger = await n8n.trigger('mailroomTrigger', { email: 'listen@example.test', simplify: true }, { test: true });
		expect(trigger.url).toMatch(/\/webhook-test\/test-webhook-id\/webhook$/);
		await trigger.hook('create', 'manual');
		expect(await record('listen@example.test')).toMatchObject({ owner: ann.id, webhook: trigger.url });
		const [id] = await sendMail(server, { to: 'listen@example.test', subject: 'test event' });
		const [run] = await waitFor(() => (trigger.runs.length > 0 ? trigger.runs : undefined), 'the delivery');
		expect(run[0][0].json).toMatchObject({ _id: id, subject: 'test event' });
		await trigger.hook('delete', 'manual');
		expect((await record('listen@example.test')).webhook).toBeNull();
	});

	it('"Listen for test event" on an active workflow gives the address back to the production URL when the test ends', async () => {
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

	it('answers 401 to an unsigned, forged or stale call and starts no run; 400 to a signed body that is not a message', async () => {
		const trigger = await n8n.trigger('mailroomTrigger', { email: 'guarded@example.test' });
		await trigger.hook('create');
		const whsec = await secret();
		const body = JSON.stringify({
			_id: 'Forged0000000001',
			subject: 'Pay this invoice',
			from: [{ address: 'ceo@example.test', name: '' }],
		});

		expect(await post(trigger.url, body)).toEqual({
			status: 401,
			body: { error: 'Unauthorized', message: 'The request has no webhook signature' },
		});
		const forged = signed(`whsec_${Buffer.from('not the account secret, 32 bytes').toString('base64')}`, body);
		expect(await post(trigger.url, body, forged)).toEqual({
			status: 401,
			body: { error: 'Unauthorized', message: 'The webhook signature does not match' },
		});
		// The right secret over another body.
		expect(await post(trigger.url, body, signed(whsec, body.replace('Pay', 'Paid')))).toMatchObject({ status: 401 });
		expect(await post(trigger.url, body, { ...signed(whsec, body), 'webhook-signature': 'v1,???' })).toMatchObject({ status: 401 });
		const stale = signed(whsec, body, new Date(Date.now() - 6 * 60_000));
		expect(await post(trigger.url, body, stale)).toEqual({
			status: 401,
			body: { error: 'Unauthorized', message: 'The webhook timestamp is too far from the current time' },
		});
		expect(await post(trigger.url, body, signed(whsec, body, new Date(Date.now() + 6 * 60_000)))).toMatchObject({ status: 401 });
		expect(trigger.runs).toEqual([]);

		// Correctly signed, within the tolerance: accepted.
		expect(await post(trigger.url, body, signed(whsec, body, new Date(Date.now() - 4 * 60_000)))).toMatchObject({ status: 200 });
		expect(trigger.runs).toHaveLength(1);
		const notMessage = JSON.stringify({ hello: 'world' });
		expect(await post(trigger.url, notMessage, signed(whsec, notMessage))).toEqual({
			status: 400,
			body: { error: 'Bad Request', message: 'Expected a Mailroom message as JSON' },
		});
		expect(trigger.runs).toHaveLength(1);
		await trigger.hook('delete');
	});

	it('after the secret is rotated past its overlap, webhook() fetches the new one once and keeps it', async () => {
		const trigger = await n8n.trigger('mailroomTrigger', { email: 'rotated@example.test', simplify: true });
		await trigger.hook('create');
		const first = String(trigger.staticData().secret);
		// Two rotations: deliveries are signed with the newest secret and the one before, not the first.
		await server.api('/api/webhook-secret/rotate', { key: ann.key, method: 'POST' });
		const newest = (await server.api('/api/webhook-secret/rotate', { key: ann.key, method: 'POST' })).body.secret;
		expect(newest).not.toBe(first);

		const [id] = await sendMail(server, { to: 'rotated@example.test', subject: 'after rotation' });
		const [run] = await waitFor(() => (trigger.runs.length > 0 ? trigger.runs : undefined), 'the delivery');
		expect(run[0][0].json).toMatchObject({ _id: id, subject: 'after rotation' });
		expect(trigger.staticData().secret).toBe(newest);
		// A forged call after that still fails (the secret is fetched again, and does not match either).
		const body = JSON.stringify({ _id: 'Forged0000000002' });
		expect((await post(trigger.url, body, signed(first, body))).status).toBe(401);
		await trigger.hook('delete');
	});

	it("on a domain's catch-all address it gets the mail of every address of the domain", async () => {
		server.domains.claim('shop.test', ann.id);
		await server.api('/api/domains/shop.test', { key: ann.key, method: 'PUT', body: { catchAll: 'all@shop.test' } });
		const trigger = await n8n.trigger('mailroomTrigger', { email: 'all@shop.test', simplify: true });
		await trigger.hook('create');
		const [id] = await sendMail(server, { to: 'anything-123@shop.test', subject: 'to the domain' });
		const [run] = await waitFor(() => (trigger.runs.length > 0 ? trigger.runs : undefined), 'the delivery');
		expect(run[0][0].json).toMatchObject({ _id: id, to: [{ address: 'anything-123@shop.test' }], subject: 'to the domain' });
		await trigger.hook('delete');
		expect((await record('all@shop.test')).webhook).toBeNull();
	});

	it('delete leaves a webhook that no longer points to this workflow alone', async () => {
		const trigger = await n8n.trigger('mailroomTrigger', { email: 'moved@example.test' });
		await trigger.hook('create');
		await server.api('/api/private-address-forwarding/moved%40example.test', {
			key: ann.key,
			method: 'PUT',
			body: { webhook: 'https://elsewhere.example.org/hook' },
		});
		expect(await trigger.hook('checkExists')).toBe(false);
		expect(await trigger.hook('delete')).toBe(true);
		expect((await record('moved@example.test')).webhook).toBe('https://elsewhere.example.org/hook');
	});

	it('without Reserve Address an address the account does not own fails clearly; an address of another account too', async () => {
		const off = await n8n.trigger('mailroomTrigger', { email: 'free@example.test', reserveAddress: false });
		await expect(off.hook('create')).rejects.toMatchObject({ message: 'Your account does not own free@example.test' });
		expect((await server.api('/api/addresses/free%40example.test', { key: ann.key })).status).toBe(404);

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
		expect((await server.api('/api/addresses/bobs%40example.test', { key: bob.key })).body.webhook).toBe('https://bob.example.org/hook');
	});
});

describe('Mailroom API credential test (as n8n runs it)', () => {
	let server: TestMailroom;
	let n8n: N8nHarness;
	beforeAll(async () => {
		server = await startTestMailroom();
		n8n = await createN8nHarness();
	});
	afterAll(async () => {
		await n8n.close();
		await server.stop();
	});

	it('a good key connects; a wrong key gets a clear message', async () => {
		const { key } = server.createAccount('dana');
		expect(await n8n.testCredential('mailroomApi', { apiKey: key, baseUrl: `${server.httpUrl}/` })).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		expect(await n8n.testCredential('mailroomApi', { apiKey: 'mr_wrong', baseUrl: server.httpUrl })).toEqual({
			status: 'Error',
			message: 'The Mailroom server rejected this API key (401 Unauthorized). Check the API key.',
		});
	});

	it('a Base URL where another web server answers gets a clear message', async () => {
		const { createServer } = await import('node:http');
		const other = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"hello":"world"}'));
		await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
		try {
			const { port } = other.address() as { port: number };
			expect(await n8n.testCredential('mailroomApi', { apiKey: 'mr_x', baseUrl: `http://127.0.0.1:${port}` })).toEqual({
				status: 'Error',
				message: 'No Mailroom server answered at this Base URL (GET /api/me gave no account). Check the Base URL.',
			});
		} finally {
			await new Promise((resolve) => other.close(resolve));
		}
	});
});
