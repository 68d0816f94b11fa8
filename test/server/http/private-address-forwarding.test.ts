import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { enc, expectError } from '../../helpers/messages';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** PUT /api/private-address-forwarding/:email (spec 4.4) and the 2.2 record it returns. */
describe('private address forwarding', () => {
	let server: TestMailroom;
	let owner: { id: string; key: string };
	let other: { id: string; key: string };
	const forwarding = (email: string) => `/api/private-address-forwarding/${enc(email)}`;
	const put = (email: string, body: unknown, key: string | null = owner.key) =>
		server.api(forwarding(email), { method: 'PUT', key: key ?? undefined, body });

	beforeAll(async () => {
		server = await startTestMailroom();
		owner = server.createAccount('hook-owner');
		other = server.createAccount('hook-other');
	});
	afterAll(() => server.stop());

	it('returns the 2.2 record with exactly its fields and JSON types', async () => {
		const reserved = await server.api('/api/addresses/types@hooks.test', { method: 'POST', key: owner.key });
		expect(reserved.status).toBe(200);
		const record = (await put('types@hooks.test', { webhook: 'https://example.org/hooks/mail' })).body;
		expect(Object.keys(record).sort()).toEqual(
			[
				'_id',
				'owner',
				'forward',
				'enablews',
				'webhook',
				'webhookSlack',
				'webhookSlackToFrom',
				'catchAll',
				'password',
				'info',
				'created',
				'updated',
			].sort(),
		);
		expect(record).toEqual({
			_id: 'types@hooks.test',
			owner: owner.id,
			forward: null,
			enablews: false,
			webhook: 'https://example.org/hooks/mail',
			webhookSlack: null,
			webhookSlackToFrom: null,
			catchAll: null,
			password: null,
			info: '',
			created: reserved.body.created,
			updated: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
		});
	});

	it('sets the webhook, refreshes updated and keeps created', async () => {
		const reserved = (await server.api('/api/addresses/Set@Hooks.test', { method: 'POST', key: owner.key })).body;
		await pause(5);
		const first = await put('SET@hooks.test', { webhook: 'https://example.org/first' });
		expect(first.status).toBe(200);
		expect(first.body).toMatchObject({ _id: 'set@hooks.test', webhook: 'https://example.org/first', created: reserved.created });
		expect(Date.parse(first.body.updated)).toBeGreaterThan(Date.parse(reserved.updated));
		await pause(5);
		const second = await put('Set@HOOKS.test', { webhook: 'http://127.0.0.1:8080/in?token=a%20b' });
		expect(second.body).toMatchObject({ webhook: 'http://127.0.0.1:8080/in?token=a%20b', created: reserved.created });
		expect(Date.parse(second.body.updated)).toBeGreaterThan(Date.parse(first.body.updated));
		// what GET shows is what was stored
		expect((await server.api('/api/addresses/set@hooks.test', { key: owner.key })).body).toEqual(second.body);
	});

	it.each([
		['an empty string', ''],
		['null', null],
	])('clears the webhook with %s', async (_label, webhook) => {
		const email = `clear-${webhook === null ? 'null' : 'empty'}@hooks.test`;
		await server.api(`/api/addresses/${email}`, { method: 'POST', key: owner.key });
		expect((await put(email, { webhook: 'https://example.org/set' })).body.webhook).toBe('https://example.org/set');
		const cleared = await put(email, { webhook });
		expect(cleared.status).toBe(200);
		expect(cleared.body.webhook).toBeNull();
		expect((await server.api(`/api/addresses/${email}`, { key: owner.key })).body.webhook).toBeNull();
	});

	it.each([
		['not a URL', 'not a url'],
		['another scheme', 'ftp://example.org/hook'],
		['a script', 'javascript:alert(1)'],
		['a number', 42],
		['an object', { url: 'https://example.org' }],
		['a URL over 2048 characters', `https://example.org/${'x'.repeat(2048)}`],
	])('refuses %s as webhook with a 400 naming the field, and keeps the old value', async (_label, webhook) => {
		await server.api('/api/addresses/strict@hooks.test', { method: 'POST', key: owner.key });
		await put('strict@hooks.test', { webhook: 'https://example.org/kept' });
		expectError(await put('strict@hooks.test', { webhook }), 400, /webhook/);
		expect((await server.api('/api/addresses/strict@hooks.test', { key: owner.key })).body.webhook).toBe('https://example.org/kept');
	});

	it('refuses a body that is not a JSON object', async () => {
		await server.api('/api/addresses/body@hooks.test', { method: 'POST', key: owner.key });
		expectError(await put('body@hooks.test', '"https://example.org"'), 400);
		expectError(await put('body@hooks.test', '[]'), 400);
		expectError(await put('body@hooks.test', '{"webhook":'), 400, /JSON/);
	});

	it("answers 404 for an address that is not reserved and 403 for another account's", async () => {
		expectError(await put('unreserved@hooks.test', { webhook: 'https://example.org/h' }), 404);
		await server.api('/api/addresses/theirs@hooks.test', { method: 'POST', key: other.key });
		expectError(await put('theirs@hooks.test', { webhook: 'https://evil.example/steal' }), 403);
		expect((await server.api('/api/addresses/theirs@hooks.test', { key: other.key })).body.webhook).toBeNull();
		// reserving in the other account's name did not happen as a side effect
		expect((await server.api('/api/addresses/unreserved@hooks.test', { key: owner.key })).status).toBe(404);
	});

	it('needs a valid key', async () => {
		await server.api('/api/addresses/keyed@hooks.test', { method: 'POST', key: owner.key });
		expectError(await put('keyed@hooks.test', { webhook: 'https://example.org/h' }, null), 401);
		expectError(await put('keyed@hooks.test', { webhook: 'https://example.org/h' }, 'mr_unknown'), 401);
		expectError(await put('not-an-address', { webhook: 'https://example.org/h' }), 400, /email/);
	});
});
