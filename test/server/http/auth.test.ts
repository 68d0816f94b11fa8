import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Me } from 'mailroom-server/dist/schemas/account';
import type { ForwardingRecord } from 'mailroom-server/dist/schemas/address';
import type { ErrorBody } from 'mailroom-server/dist/schemas/error';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { query } from '../../helpers/database';

/** Who calls: no key, a key nobody issued, another account's key, the owner's key. */
type Caller = 'none' | 'unknown' | 'other' | 'owner';
const CALLERS: Caller[] = ['none', 'unknown', 'other', 'owner'];

describe('HTTP auth', () => {
	let server: TestMailroom;
	let owner: { id: string; key: string };
	let other: { id: string; key: string };
	const keyOf = (caller: Caller) =>
		({ none: undefined, unknown: 'mr_not-a-key-anyone-was-given', other: other.key, owner: owner.key })[caller];

	/** Sends one message to `inbox` and returns its record id. */
	async function deliver(inbox: string): Promise<string> {
		const info = await server.send({ from: 'sender@sender.test', to: inbox, subject: `to ${inbox}`, text: 'See https://example.org/auth' });
		return /stored as (\S+)/.exec(info.response)![1];
	}

	beforeAll(async () => {
		server = await startTestMailroom();
		owner = await server.createAccount('owner');
		other = await server.createAccount('other');
	});
	afterAll(() => server.stop());

	describe.each([
		['public', 'open@public.test', { none: 200, unknown: 401, other: 200, owner: 200 }],
		['private (reserved)', 'reserved@public.test', { none: 401, unknown: 401, other: 403, owner: 200 }],
		['private (account-owned domain)', 'anyone@owned-domain.test', { none: 401, unknown: 401, other: 403, owner: 200 }],
	] as const)('a %s inbox', (_kind, inbox, expected) => {
		let messageId: string;
		beforeAll(async () => {
			if (inbox.startsWith('reserved@')) {
				expect((await server.api(`/api/addresses/${inbox}`, { method: 'POST', key: owner.key })).status).toBe(200);
			}
			if (inbox.endsWith('@owned-domain.test')) {
				await query(server, 'INSERT INTO domains (domain, owner, created) VALUES (?, ?, ?)', [
					'owned-domain.test',
					owner.id,
					new Date().toISOString(),
				]);
			}
			messageId = await deliver(inbox);
		});

		it.each(CALLERS)('lists its messages for caller "%s" as documented', async (caller) => {
			const response = await server.api<MessageRecord[]>(`/api/addresses/${encodeURIComponent(inbox)}/messages`, { key: keyOf(caller) });
			expect(response.status).toBe(expected[caller]);
			if (response.status === 200) {
				expect(response.body.map((message) => message._id)).toEqual([messageId]);
			} else {
				expect(response.body).toEqual({ error: expect.any(String), message: expect.any(String) });
			}
		});

		it.each(CALLERS)('serves its message text for caller "%s" as documented', async (caller) => {
			const response = await server.api(`/api/text/${encodeURIComponent(inbox)}/${messageId}`, { key: keyOf(caller) });
			expect(response.status).toBe(expected[caller]);
			if (response.status === 200) {
				expect(response.text).toContain('See [1]');
			} else {
				expect(response.body).toEqual({ error: expect.any(String), message: expect.any(String) });
				expect(response.text).not.toContain('example.org/auth');
			}
		});
	});

	it('gives 401 to an unknown key on every route, including unknown ones', async () => {
		const routes: [string, string, unknown?][] = [
			['GET', '/api/addresses/open@public.test/messages'],
			['GET', '/api/text/open@public.test/abc'],
			['POST', '/api/addresses/free@public.test'],
			['GET', '/api/addresses/reserved@public.test'],
			['DELETE', '/api/addresses/reserved@public.test'],
			['PUT', '/api/private-address-forwarding/reserved@public.test', { webhook: 'https://example.org/hook' }],
			['GET', '/api/me'],
			['GET', '/api/no-such-route'],
		];
		for (const [method, path, body] of routes) {
			const response = await server.api(path, { method, body, key: keyOf('unknown') });
			expect({ method, path, status: response.status }).toEqual({ method, path, status: 401 });
			expect(response.body).toEqual({ error: 'Unauthorized', message: expect.stringMatching(/unknown or revoked/) });
		}
		// the unknown key changed nothing
		expect((await server.api('/api/addresses/reserved@public.test', { key: owner.key })).status).toBe(200);
		expect((await server.api('/api/addresses/free@public.test', { key: owner.key })).status).toBe(404);
	});

	it("refuses a revoked key with 401 at once, while the account's other keys keep working", async () => {
		const account = await server.createAccount('revokes');
		const second = await server.accounts.createKey(account.id, 'second');
		expect((await server.api('/api/me', { key: account.key })).status).toBe(200);
		const firstKeyId = (await server.accounts.listKeys(account.id)).find((key) => key.id !== second.info.id)!.id;
		await server.accounts.revokeKey(firstKeyId);
		const refused = await server.api<ErrorBody>('/api/me', { key: account.key });
		expect(refused.status).toBe(401);
		expect(refused.body.error).toBe('Unauthorized');
		expect((await server.api('/api/addresses/open@public.test/messages', { key: account.key })).status).toBe(401);
		expect((await server.api<Me>('/api/me', { key: second.key })).body._id).toBe(account.id);
	});

	it('does not let another account reserve an address in an account-owned domain', async () => {
		const response = await server.api('/api/addresses/grab@owned-domain.test', { method: 'POST', key: other.key });
		expect(response.status).toBe(403);
		expect(response.body).toEqual({ error: 'Forbidden', message: expect.any(String) });
		expect((await server.api('/api/addresses/anyone@owned-domain.test/messages', { key: other.key })).status).toBe(403);
		// the domain's owner may reserve addresses in it
		const own = await server.api<ForwardingRecord>('/api/addresses/mine@owned-domain.test', { method: 'POST', key: owner.key });
		expect(own.status).toBe(200);
		expect(own.body.owner).toBe(owner.id);
	});

	it('treats an empty Service-Key header as no key', async () => {
		expect((await server.api('/api/addresses/open@public.test/messages', { headers: { 'Service-Key': '' } })).status).toBe(200);
		expect((await server.api('/api/addresses/reserved@public.test/messages', { headers: { 'Service-Key': '' } })).status).toBe(401);
	});

	describe("Mailsac-Key, the header Mailsac's own client sends, as a synonym of Service-Key", () => {
		const withMailsacKey = (key: string) => ({ headers: { 'Mailsac-Key': key } });

		it.each(CALLERS)('gives caller "%s" the access Service-Key gives', async (caller) => {
			const key = keyOf(caller);
			for (const path of ['/api/addresses/reserved@public.test/messages', '/api/addresses/open@public.test/messages', '/api/me']) {
				const viaServiceKey = await server.api(path, { key });
				const viaMailsacKey = await server.api(path, key === undefined ? {} : withMailsacKey(key));
				expect({ path, status: viaMailsacKey.status, body: viaMailsacKey.body }).toEqual({
					path,
					status: viaServiceKey.status,
					body: viaServiceKey.status === 401 ? { error: 'Unauthorized', message: expect.any(String) } : viaServiceKey.body,
				});
			}
		});

		it('names the header of an unknown key, treats an empty one as no key, and refuses two different keys', async () => {
			const unknown = await server.api<ErrorBody>('/api/addresses/open@public.test/messages', withMailsacKey('mr_made-up'));
			expect(unknown.body).toEqual({ error: 'Unauthorized', message: 'The API key in the Mailsac-Key header is unknown or revoked' });
			expect((await server.api('/api/addresses/open@public.test/messages', withMailsacKey(''))).status).toBe(200);
			const same = await server.api<Me>('/api/me', { key: owner.key, headers: { 'Mailsac-Key': owner.key } });
			expect(same.body._id).toBe(owner.id);
			const different = await server.api<ErrorBody>('/api/me', { key: owner.key, headers: { 'Mailsac-Key': other.key } });
			expect(different).toMatchObject({
				status: 400,
				body: { error: 'Bad Request', message: 'The Service-Key and Mailsac-Key headers hold different keys: send one key' },
			});
		});

		it('is counted by the rate limiter per key, not per client IP', async () => {
			const limited = await startTestMailroom({ rateLimitIp: 2, rateLimitKey: 50 });
			try {
				const { key } = await limited.createAccount('counted');
				const withKey = await Promise.all([1, 2, 3, 4].map(() => limited.api('/api/me', withMailsacKey(key))));
				expect(withKey.map((response) => response.status)).toEqual([200, 200, 200, 200]);
				const withoutKey = [];
				for (let i = 0; i < 3; i++) withoutKey.push((await limited.api('/api/addresses/open@public.test/messages')).status);
				expect(withoutKey).toEqual([200, 200, 429]);
			} finally {
				await limited.stop();
			}
		});
	});
});
