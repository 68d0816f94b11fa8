import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { expectError } from '../../helpers/messages';

describe('GET /api/me', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom();
	});
	afterAll(() => server.stop());

	it("returns the key's account with exactly _id, name, sendsRemaining, admin and created", async () => {
		const account = server.createAccount('me-test', 7);
		const me = await server.api('/api/me', { key: account.key });
		expect(me.status).toBe(200);
		expect(me.body).toEqual({
			_id: account.id,
			name: 'me-test',
			sendsRemaining: 7,
			admin: false,
			created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
		});
	});

	it('shows the admin account created on first start, and credits added later', async () => {
		const admin = await server.api('/api/me', { key: server.adminKey });
		expect(admin.body).toMatchObject({ name: 'admin', admin: true, sendsRemaining: 0 });
		server.accounts.addCredits(admin.body._id, 25);
		expect((await server.api('/api/me', { key: server.adminKey })).body.sendsRemaining).toBe(25);
	});

	it('needs a valid key', async () => {
		expectError(await server.api('/api/me'), 401, /Service-Key/);
		expectError(await server.api('/api/me', { key: 'mr_unknown' }), 401);
	});
});
