import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AccountStats, ApiKeyView, Me } from 'mailroom-server/dist/schemas/account';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom, type TestMailroom } from '../../../helpers/mailroom';
import { enc, expectError, sendMail } from '../../../helpers/messages';

/** What POST /api/me/keys answers: the new key, shown this once. */
interface NewApiKey {
	id: string;
	key: string;
	label: string;
	created: string;
}

describe('Account API', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom();
	});
	afterAll(() => server.stop());

	describe('GET /api/me', () => {
		it("returns the key's account with exactly _id, name, sendsRemaining, admin and created", async () => {
			const account = await server.createAccount('me-test', 7);
			const me = await server.api<Me>('/api/me', { key: account.key });
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
			const admin = await server.api<Me>('/api/me', { key: server.adminKey });
			expect(admin.body).toMatchObject({ name: 'admin', admin: true, sendsRemaining: 0 });
			await server.accounts.addCredits(admin.body._id, 25);
			expect((await server.api<Me>('/api/me', { key: server.adminKey })).body.sendsRemaining).toBe(25);
		});

		it('needs a valid key', async () => {
			expectError(await server.api('/api/me'), 401, /Service-Key/);
			expectError(await server.api('/api/me', { key: 'mr_unknown' }), 401);
		});
	});

	describe('GET /api/me/stats', () => {
		it('counts the addresses, domains, private mail, its bytes, starred mail and credits of the account', async () => {
			const ann = await server.createAccount('stats-ann', 7);
			const bob = await server.createAccount('stats-bob');
			const empty = await server.api<AccountStats>('/api/me/stats', { key: ann.key });
			expect(empty.status).toBe(200);
			expect(empty.body).toEqual({ addresses: [], domains: [], storedMessages: 0, starredMessages: 0, inboxBytes: 0, sendsRemaining: 7 });

			await server.api(`/api/addresses/${enc('b@stats.test')}`, { method: 'POST', key: ann.key });
			await server.api(`/api/addresses/${enc('a@stats.test')}`, { method: 'POST', key: ann.key });
			await server.api('/api/domains/ann-stats.test', { method: 'POST', key: ann.key });
			await server.api(`/api/addresses/${enc('bob@stats.test')}`, { method: 'POST', key: bob.key });
			// Two private messages of ann (one per kind of ownership), one of bob, one public.
			await sendMail(server, { to: ['a@stats.test', 'x@ann-stats.test', 'bob@stats.test', 'public@stats.test'], text: 'counted' });
			const sizes = (
				await Promise.all(
					['a@stats.test', 'x@ann-stats.test'].map((inbox) =>
						server.api<MessageRecord[]>(`/api/addresses/${enc(inbox)}/messages`, { key: ann.key }),
					),
				)
			).map((list) => list.body[0].size);

			// Starring counts wherever the message is, a public inbox too.
			const publicMessage = (await server.api<MessageRecord[]>(`/api/addresses/${enc('public@stats.test')}/messages`)).body[0];
			const starred = await server.api(`/api/addresses/${enc('public@stats.test')}/messages/${publicMessage._id}/star`, {
				method: 'PUT',
				key: ann.key,
			});
			expect(starred.status).toBe(200);

			const stats = await server.api<AccountStats>('/api/me/stats', { key: ann.key });
			expect(stats.body).toEqual({
				addresses: ['a@stats.test', 'b@stats.test'],
				domains: ['ann-stats.test'],
				storedMessages: 2,
				starredMessages: 1,
				inboxBytes: sizes[0] + sizes[1],
				sendsRemaining: 7,
			});
			expect((await server.api<AccountStats>('/api/me/stats', { key: bob.key })).body).toMatchObject({
				addresses: ['bob@stats.test'],
				storedMessages: 1,
			});
		});

		it('needs a valid key', async () => {
			expectError(await server.api('/api/me/stats'), 401);
			expectError(await server.api('/api/me/stats', { key: 'mr_not-a-key' }), 401);
		});
	});

	describe('API keys: /api/me/keys', () => {
		it('creates a key shown once, which then works, and lists keys without the key itself', async () => {
			const ann = await server.createAccount('keys-ann');
			const created = await server.api<NewApiKey>('/api/me/keys', { method: 'POST', key: ann.key, body: { label: 'dashboard' } });
			expect(created.status).toBe(200);
			expect(created.body).toEqual({
				id: expect.any(String),
				key: expect.stringMatching(/^mr_/),
				label: 'dashboard',
				created: expect.any(String),
			});
			expect((await server.api<Me>('/api/me', { key: created.body.key })).body._id).toBe(ann.id);

			const list = await server.api<ApiKeyView[]>('/api/me/keys', { key: created.body.key });
			expect(list.status).toBe(200);
			expect(list.body).toHaveLength(2);
			expect(list.body[1]).toEqual({
				id: created.body.id,
				label: 'dashboard',
				created: created.body.created,
				revoked: null,
				current: true,
			});
			expect(list.body[0]).toMatchObject({ revoked: null, current: false });
			expect(list.text).not.toContain(created.body.key);
			expect(list.text).not.toContain(ann.key);
		});

		it('creates a key without a body, with an empty label', async () => {
			const ann = await server.createAccount('keys-nobody');
			const created = await server.api<NewApiKey>('/api/me/keys', { method: 'POST', key: ann.key });
			expect(created.status).toBe(200);
			expect(created.body.label).toBe('');
			expectError(await server.api('/api/me/keys', { method: 'POST', key: ann.key, body: { label: 'x'.repeat(201) } }), 400);
		});

		it('revokes a key with another key of the account: it stops working at once', async () => {
			const ann = await server.createAccount('keys-revoke');
			const second = (await server.api<NewApiKey>('/api/me/keys', { method: 'POST', key: ann.key, body: { label: 'ci' } })).body;
			const revoked = await server.api<ApiKeyView>(`/api/me/keys/${second.id}`, { method: 'DELETE', key: ann.key });
			expect(revoked.status).toBe(200);
			expect(revoked.body).toEqual({ id: second.id, label: 'ci', created: second.created, revoked: expect.any(String), current: false });
			expectError(await server.api('/api/me', { key: second.key }), 401);
			// Again: nothing changes.
			const again = await server.api<ApiKeyView>(`/api/me/keys/${second.id}`, { method: 'DELETE', key: ann.key });
			expect(again.body.revoked).toBe(revoked.body.revoked);
			expect((await server.api<ApiKeyView[]>('/api/me/keys', { key: ann.key })).body.find((k) => k.id === second.id)!.revoked).toBe(
				revoked.body.revoked,
			);
		});

		it('refuses to revoke the key the request is made with (409)', async () => {
			const ann = await server.createAccount('keys-self');
			const own = (await server.api<ApiKeyView[]>('/api/me/keys', { key: ann.key })).body[0];
			expectError(await server.api(`/api/me/keys/${own.id}`, { method: 'DELETE', key: ann.key }), 409, /another key/);
			expect((await server.api('/api/me', { key: ann.key })).status).toBe(200);
		});

		it("cannot see or revoke another account's keys (404), and needs a key (401)", async () => {
			const ann = await server.createAccount('keys-a');
			const bob = await server.createAccount('keys-b');
			const bobKey = (await server.api<ApiKeyView[]>('/api/me/keys', { key: bob.key })).body[0];
			expectError(await server.api(`/api/me/keys/${bobKey.id}`, { method: 'DELETE', key: ann.key }), 404);
			expect((await server.api('/api/me', { key: bob.key })).status).toBe(200);
			expect((await server.api<ApiKeyView[]>('/api/me/keys', { key: ann.key })).body.map((k) => k.id)).not.toContain(bobKey.id);
			expectError(await server.api('/api/me/keys/unknownKeyId123', { method: 'DELETE', key: ann.key }), 404);
			expectError(await server.api('/api/me/keys/bad%20id!', { method: 'DELETE', key: ann.key }), 400);
			expectError(await server.api('/api/me/keys'), 401);
			expectError(await server.api('/api/me/keys', { method: 'POST', body: { label: 'x' } }), 401);
			expectError(await server.api(`/api/me/keys/${bobKey.id}`, { method: 'DELETE' }), 401);
		});
	});
});
