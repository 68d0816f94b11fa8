import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Me, ApiKeyView } from 'mailroom-server/dist/schemas/account';
import type { NewAccount } from 'mailroom-server/dist/schemas/admin';
import type { DomainRecord } from 'mailroom-server/dist/schemas/domain';
import { startTestMailroom, type TestMailroom } from '../../../helpers/mailroom';
import { expectError } from '../../../helpers/messages';

/** What `mailroom accounts|keys|credits|domains` do, over HTTP for admins (the dashboard's Admin page). */
describe('admin routes', () => {
	let server: TestMailroom;
	let member: { id: string; key: string };
	const admin = (path: string, options: { method?: string; body?: unknown } = {}) => server.api(path, { ...options, key: server.adminKey });

	beforeAll(async () => {
		server = await startTestMailroom({ domains: ['public.test'] });
		member = await server.createAccount('member');
	});
	afterAll(() => server.stop());

	it('answers only an admin key: 401 without a key, 403 with an ordinary one', async () => {
		const calls: [string, string, unknown?][] = [
			['GET', '/api/admin/accounts'],
			['POST', '/api/admin/accounts', { name: 'sneaky' }],
			['POST', '/api/admin/accounts/member/credits', { credits: 5 }],
			['GET', '/api/admin/accounts/member/keys'],
			['POST', '/api/admin/accounts/member/keys', { label: 'x' }],
			['GET', '/api/admin/domains'],
			['POST', '/api/admin/domains/grab.test', { account: 'member' }],
			['DELETE', '/api/admin/domains/grab.test'],
		];
		for (const [method, path, body] of calls) {
			expectError(await server.api(path, { method, body }), 401, /needs an API key/);
			expectError(await server.api(path, { method, body, key: member.key }), 403, /Only an admin account's key/);
		}
		expect((await server.accounts.list()).map((account) => account.name).sort()).toEqual(['admin', 'member']);
	});

	it('creates an account with its first key, which works at once; refuses a taken or malformed name', async () => {
		const created = await admin('/api/admin/accounts', { method: 'POST', body: { name: 'acme-qa', credits: 7 } });
		expect(created.status).toBe(200);
		const { account, key } = created.body as NewAccount;
		expect(account).toMatchObject({ name: 'acme-qa', sendsRemaining: 7, admin: false });
		expect((await server.api<Me>('/api/me', { key: key.key })).body).toMatchObject({ _id: account._id, name: 'acme-qa' });
		expectError(await admin('/api/admin/accounts', { method: 'POST', body: { name: 'acme-qa' } }), 409, /already exists/);
		expectError(await admin('/api/admin/accounts', { method: 'POST', body: { name: 'no spaces' } }), 400, /must be 1-64 letters/, 'name');
		const listed = (await admin('/api/admin/accounts')).body as Me[];
		expect(listed.map((one) => [one.name, one.admin])).toEqual(
			expect.arrayContaining([
				['admin', true],
				['acme-qa', false],
			]),
		);
	});

	it('adds credits to an account named by name or id; refuses none and an unknown account', async () => {
		const added = await admin('/api/admin/accounts/member/credits', { method: 'POST', body: { credits: 3 } });
		expect(added.body).toMatchObject({ name: 'member', sendsRemaining: 3 });
		const again = await admin(`/api/admin/accounts/${member.id}/credits`, { method: 'POST', body: { credits: 2 } });
		expect(again.body).toMatchObject({ sendsRemaining: 5 });
		expectError(await admin('/api/admin/accounts/member/credits', { method: 'POST', body: { credits: 0 } }), 400, /./, 'credits');
		expectError(await admin('/api/admin/accounts/nobody/credits', { method: 'POST', body: { credits: 1 } }), 404, /no account "nobody"/);
	});

	it("creates, lists and revokes an account's keys; the admin's own key cannot revoke itself", async () => {
		const created = (await admin('/api/admin/accounts/member/keys', { method: 'POST', body: { label: 'CI' } })).body as {
			id: string;
			key: string;
		};
		expect((await server.api<Me>('/api/me', { key: created.key })).status).toBe(200);
		const revoked = await admin(`/api/admin/accounts/member/keys/${created.id}`, { method: 'DELETE' });
		expect(revoked.body).toMatchObject({ id: created.id, label: 'CI', revoked: expect.any(String) });
		expect((await server.api('/api/me', { key: created.key })).status).toBe(401);
		const keys = (await admin('/api/admin/accounts/member/keys')).body as ApiKeyView[];
		expect(keys.map((key) => [key.label, key.revoked === null])).toEqual([
			['', true],
			['CI', false],
		]);

		const own = ((await admin('/api/admin/accounts/admin/keys')).body as ApiKeyView[]).find((key) => key.current)!;
		expectError(await admin(`/api/admin/accounts/admin/keys/${own.id}`, { method: 'DELETE' }), 409, /revoke it with another admin key/);
		expectError(await admin(`/api/admin/accounts/member/keys/${own.id}`, { method: 'DELETE' }), 404, /No API key/);
	});

	it('gives a domain to an account and takes it back, with the rules of `mailroom domains`', async () => {
		const given = await admin('/api/admin/domains/Acme.test', { method: 'POST', body: { account: 'member' } });
		expect(given.body).toMatchObject({ _id: 'acme.test', owner: member.id });
		expect(((await admin('/api/admin/domains')).body as DomainRecord[]).map((domain) => domain._id)).toEqual(['acme.test']);
		expectError(await admin('/api/admin/domains/acme.test', { method: 'POST', body: { account: 'acme-qa' } }), 403, /acme.test/);
		expectError(await admin('/api/admin/domains/public.test', { method: 'POST', body: { account: 'member' } }), 403, /public domain/);
		expectError(await admin('/api/admin/domains/not_a_domain', { method: 'POST', body: { account: 'member' } }), 400, /not a domain/);
		expect((await admin('/api/admin/domains/acme.test', { method: 'DELETE' })).body).toMatchObject({ _id: 'acme.test' });
		expectError(await admin('/api/admin/domains/acme.test', { method: 'DELETE' }), 404, /No account owns the domain acme.test/);
	});
});
