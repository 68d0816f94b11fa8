import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ForwardingRecord } from 'mailroom-server/dist/schemas/address';
import type { DomainRecord } from 'mailroom-server/dist/schemas/domain';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom, type TestMailroom } from '../../../helpers/mailroom';
import { enc, expectError, sendMail } from '../../../helpers/messages';

/** What GET /api/domains/:domain answers. */
interface DomainDetails {
	domain: DomainRecord;
	totalMessages: number;
	catchAllAddress: ForwardingRecord | null;
}

describe('Domains API and catch-all', () => {
	let server: TestMailroom;
	let ann: { id: string; key: string };
	let bob: { id: string; key: string };
	beforeAll(async () => {
		// example.test is a public domain of this server; anything else is accepted only once an account owns it.
		server = await startTestMailroom({ domains: ['example.test'] });
		ann = await server.createAccount('ann');
		bob = await server.createAccount('bob');
	});
	afterAll(() => server.stop());

	const claim = (domain: string, key?: string) => server.api<DomainRecord>(`/api/domains/${domain}`, { method: 'POST', key });
	const setCatchAll = (domain: string, catchAll: string | null, key?: string) =>
		server.api<DomainRecord>(`/api/domains/${domain}`, { method: 'PUT', key, body: { catchAll } });

	describe('POST /api/domains/:domain (claim)', () => {
		it('gives the domain to the caller: SMTP accepts its mail and the mail is private', async () => {
			await expect(sendMail(server, { to: 'early@ann.test' })).rejects.toThrow(/550|553|554|not accept|relay/i);
			const claimed = await claim('Ann.Test', ann.key);
			expect(claimed.status).toBe(200);
			expect(claimed.body).toEqual({ _id: 'ann.test', owner: ann.id, catchAll: null, created: expect.any(String) });
			await sendMail(server, { to: 'someone@ann.test' });
			expect((await server.api<MessageRecord[]>(`/api/addresses/${enc('someone@ann.test')}/messages`, { key: ann.key })).body).toHaveLength(
				1,
			);
			expectError(await server.api(`/api/addresses/${enc('someone@ann.test')}/messages`), 401);
			expectError(await server.api(`/api/addresses/${enc('someone@ann.test')}/messages`, { key: bob.key }), 403);
		});

		it('answers 200 unchanged when the caller owns it already, 403 when another account does', async () => {
			const first = await claim('twice.test', ann.key);
			expect((await claim('twice.test', ann.key)).body).toEqual(first.body);
			expectError(await claim('twice.test', bob.key), 403, /another account/);
			expect((await server.domains.get('twice.test'))!.owner).toBe(ann.id);
		});

		it('refuses a public domain of the server and a domain where another account holds an address', async () => {
			expectError(await claim('example.test', ann.key), 403, /public domain/);
			await server.api(`/api/addresses/${enc('bob@shared.test')}`, { method: 'POST', key: bob.key });
			expectError(await claim('shared.test', ann.key), 403, /bob@shared.test is reserved by another account/);
			expect((await claim('shared.test', bob.key)).status).toBe(200);
		});

		it("refuses a subdomain of another account's domain, a domain above another's, and a public suffix, with 403", async () => {
			expect((await claim('annscorp.test', ann.key)).status).toBe(200);
			expectError(
				await claim('sub.annscorp.test', bob.key),
				403,
				/^sub\.annscorp\.test is a subdomain of annscorp\.test, which another account owns/,
			);
			expect((await claim('sub.annscorp.test', ann.key)).status).toBe(200);
			expect((await claim('team.bobscorp.test', bob.key)).status).toBe(200);
			expectError(await claim('bobscorp.test', ann.key), 403, /^team\.bobscorp\.test is owned by another account/);
			expectError(await claim('co.uk', ann.key), 403, /co\.uk is a public suffix/);
		});

		it('needs a key and a valid domain', async () => {
			expectError(await claim('nokey.test'), 401);
			expectError(await claim('not_a_domain!', ann.key), 400, /^"not_a_domain!" is not a domain name$/);
			expectError(await claim(`${'a'.repeat(64)}.test`, ann.key), 400);
		});
	});

	describe('GET /api/domains and /api/domains/:domain', () => {
		it("lists the caller's domains only", async () => {
			const carol = await server.createAccount('carol');
			await claim('b.carol.test', carol.key);
			await claim('a.carol.test', carol.key);
			const list = await server.api<DomainRecord[]>('/api/domains', { key: carol.key });
			expect(list.status).toBe(200);
			expect(list.body.map((domain) => domain._id)).toEqual(['a.carol.test', 'b.carol.test']);
			expectError(await server.api('/api/domains'), 401);
		});

		it('gets one domain with its message count and catch-all address', async () => {
			await claim('count.test', ann.key);
			await sendMail(server, { to: ['one@count.test', 'two@count.test'] });
			const one = await server.api<DomainDetails>('/api/domains/COUNT.test', { key: ann.key });
			expect(one.status).toBe(200);
			expect(one.body).toEqual({
				domain: { _id: 'count.test', owner: ann.id, catchAll: null, created: expect.any(String) },
				totalMessages: 2,
				catchAllAddress: null,
			});
			expectError(await server.api('/api/domains/count.test', { key: bob.key }), 403);
			expectError(await server.api('/api/domains/count.test'), 401);
			expectError(await server.api('/api/domains/unclaimed.test', { key: ann.key }), 404);
			expectError(await server.api('/api/domains/bad_domain', { key: ann.key }), 400);
		});
	});

	describe('PUT /api/domains/:domain (catch-all)', () => {
		it('makes an address of the domain its catch-all: visible on the domain and on the forwarding record', async () => {
			await claim('catch.test', ann.key);
			const set = await setCatchAll('catch.test', 'Everything@catch.test', ann.key);
			expect(set.status).toBe(200);
			expect(set.body).toMatchObject({ _id: 'catch.test', catchAll: 'everything@catch.test' });
			const record = await server.api<ForwardingRecord>(`/api/addresses/${enc('everything@catch.test')}`, { key: ann.key });
			expect(record.body).toMatchObject({ _id: 'everything@catch.test', owner: ann.id, catchAll: 'catch.test' });
			const domain = await server.api<DomainDetails>('/api/domains/catch.test', { key: ann.key });
			expect(domain.body.domain.catchAll).toBe('everything@catch.test');
			expect(domain.body.catchAllAddress).toMatchObject({ _id: 'everything@catch.test', catchAll: 'catch.test' });
			// Its forwarding is set like any private address's.
			const hooked = await server.api<ForwardingRecord>(`/api/private-address-forwarding/${enc('everything@catch.test')}`, {
				method: 'PUT',
				key: ann.key,
				body: { webhook: 'https://hooks.example.org/catch' },
			});
			expect(hooked.body).toMatchObject({ catchAll: 'catch.test', webhook: 'https://hooks.example.org/catch' });
			expect((await server.addresses.catchAllOf('catch.test'))!.webhook).toBe('https://hooks.example.org/catch');
		});

		it('keeps one catch-all per domain, and clears it with null or ""', async () => {
			await claim('swap.test', ann.key);
			await setCatchAll('swap.test', 'first@swap.test', ann.key);
			expect((await setCatchAll('swap.test', 'second@swap.test', ann.key)).body.catchAll).toBe('second@swap.test');
			expect((await server.api<ForwardingRecord>(`/api/addresses/${enc('first@swap.test')}`, { key: ann.key })).body.catchAll).toBeNull();
			expect((await setCatchAll('swap.test', '', ann.key)).body.catchAll).toBeNull();
			expect((await server.api<ForwardingRecord>(`/api/addresses/${enc('second@swap.test')}`, { key: ann.key })).body.catchAll).toBeNull();
			await setCatchAll('swap.test', 'third@swap.test', ann.key);
			expect((await setCatchAll('swap.test', null, ann.key)).body.catchAll).toBeNull();
			expect(await server.addresses.catchAllOf('swap.test')).toBeUndefined();
		});

		it('ends with the catch-all address when that address is released', async () => {
			await claim('gone.test', ann.key);
			await setCatchAll('gone.test', 'all@gone.test', ann.key);
			await server.api(`/api/addresses/${enc('all@gone.test')}`, { method: 'DELETE', key: ann.key });
			expect((await server.api('/api/domains/gone.test', { key: ann.key })).body).toMatchObject({
				domain: { catchAll: null },
				catchAllAddress: null,
			});
		});

		it('refuses an address of another domain, a bad body, other accounts and missing keys', async () => {
			await claim('strict.test', ann.key);
			expectError(
				await setCatchAll('strict.test', 'x@other.test', ann.key),
				400,
				/^catchAll must be an address of strict\.test; x@other\.test is not$/,
				'catchAll',
			);
			expectError(await setCatchAll('strict.test', 'not an address', ann.key), 400);
			expectError(await server.api('/api/domains/strict.test', { method: 'PUT', key: ann.key, body: {} }), 400);
			expectError(await setCatchAll('strict.test', 'x@strict.test', bob.key), 403);
			expectError(await setCatchAll('strict.test', 'x@strict.test'), 401);
			expectError(await setCatchAll('unclaimed.test', 'x@unclaimed.test', ann.key), 404);
			expect(await server.addresses.get('x@strict.test')).toBeUndefined();
		});
	});

	describe('GET /api/domains/:domain/messages', () => {
		it('lists the mail of every address of the domain, newest first, paged with limit and until', async () => {
			await claim('list.test', ann.key);
			for (const to of ['a@list.test', 'b@list.test', 'c@list.test', 'a@list.test']) await sendMail(server, { to });
			const all = await server.api<MessageRecord[]>('/api/domains/list.test/messages', { key: ann.key });
			expect(all.status).toBe(200);
			expect(all.body.map((m) => m.inbox)).toEqual(['a@list.test', 'c@list.test', 'b@list.test', 'a@list.test']);
			const received = all.body.map((m) => Date.parse(m.received));
			expect([...received].sort((x, y) => y - x)).toEqual(received);

			// Walk the pages the documented way: `until` = the last `received`, skipping ids already seen.
			const seen: string[] = [];
			let until: string | undefined;
			for (let page = 0; page < 10; page++) {
				const query = `limit=2${until ? `&until=${enc(until)}` : ''}`;
				const body = (await server.api<MessageRecord[]>(`/api/domains/list.test/messages?${query}`, { key: ann.key })).body;
				const fresh = body.filter((m) => !seen.includes(m._id));
				seen.push(...fresh.map((m) => m._id));
				if (body.length < 2 || fresh.length === 0) break;
				until = body[body.length - 1].received;
			}
			expect(seen).toEqual(all.body.map((m) => m._id));
		});

		it('keeps every record of one delivery to several addresses across page boundaries', async () => {
			await claim('multi.test', ann.key);
			await sendMail(server, { to: ['x@multi.test', 'y@multi.test', 'z@multi.test'] });
			const first = (await server.api<MessageRecord[]>('/api/domains/multi.test/messages?limit=1', { key: ann.key })).body;
			const rest = (
				await server.api<MessageRecord[]>(`/api/domains/multi.test/messages?limit=10&until=${enc(first[0].received)}`, { key: ann.key })
			).body;
			const inboxes = new Set([...first, ...rest].map((m) => m.inbox));
			expect([...inboxes].sort()).toEqual(['x@multi.test', 'y@multi.test', 'z@multi.test']);
		});

		it('refuses other accounts, missing keys, unclaimed domains and bad parameters', async () => {
			expectError(await server.api('/api/domains/list.test/messages', { key: bob.key }), 403);
			expectError(await server.api('/api/domains/list.test/messages'), 401);
			expectError(await server.api('/api/domains/unclaimed.test/messages', { key: ann.key }), 404);
			expectError(await server.api('/api/domains/list.test/messages?limit=0', { key: ann.key }), 400);
			expectError(await server.api('/api/domains/list.test/messages?limit=1001', { key: ann.key }), 400);
			expectError(await server.api('/api/domains/list.test/messages?until=yesterday', { key: ann.key }), 400);
		});
	});

	describe('POST /api/domains/:domain/delete-all-domain-mail', () => {
		it('deletes every message of the domain (204) and nothing of other domains', async () => {
			await claim('wipe.test', ann.key);
			await claim('keep.test', ann.key);
			await sendMail(server, { to: ['a@wipe.test', 'b@wipe.test', 'a@keep.test'] });
			const wiped = await server.api('/api/domains/wipe.test/delete-all-domain-mail', { method: 'POST', key: ann.key });
			expect(wiped.status).toBe(204);
			expect(wiped.text).toBe('');
			expect((await server.api('/api/domains/wipe.test/messages', { key: ann.key })).body).toEqual([]);
			expect((await server.api(`/api/addresses/${enc('a@wipe.test')}/messages`, { key: ann.key })).body).toEqual([]);
			expect((await server.api<DomainDetails>('/api/domains/keep.test', { key: ann.key })).body.totalMessages).toBe(1);
		});

		it('refuses other accounts, missing keys and unclaimed domains', async () => {
			await sendMail(server, { to: 'stays@keep.test' });
			expectError(await server.api('/api/domains/keep.test/delete-all-domain-mail', { method: 'POST', key: bob.key }), 403);
			expectError(await server.api('/api/domains/keep.test/delete-all-domain-mail', { method: 'POST' }), 401);
			expectError(await server.api('/api/domains/unclaimed.test/delete-all-domain-mail', { method: 'POST', key: ann.key }), 404);
			expect((await server.api<DomainDetails>('/api/domains/keep.test', { key: ann.key })).body.totalMessages).toBe(2);
		});
	});

	describe('DELETE /api/domains/:domain', () => {
		it('gives the domain up: its mail turns public, reserved addresses stay, the catch-all goes', async () => {
			await claim('leave.test', ann.key);
			await server.api(`/api/addresses/${enc('kept@leave.test')}`, { method: 'POST', key: ann.key });
			await setCatchAll('leave.test', 'all@leave.test', ann.key);
			await sendMail(server, { to: ['loose@leave.test', 'kept@leave.test'] });
			const removed = await server.api<DomainRecord>('/api/domains/leave.test', { method: 'DELETE', key: ann.key });
			expect(removed.status).toBe(200);
			expect(removed.body).toMatchObject({ _id: 'leave.test', owner: ann.id });
			expectError(await server.api('/api/domains/leave.test', { key: ann.key }), 404);
			expect((await server.api<MessageRecord[]>(`/api/addresses/${enc('loose@leave.test')}/messages`)).body).toHaveLength(1);
			expectError(await server.api(`/api/addresses/${enc('kept@leave.test')}/messages`), 401);
			expect((await server.api<ForwardingRecord>(`/api/addresses/${enc('all@leave.test')}`, { key: ann.key })).body.catchAll).toBeNull();
		});

		it('refuses other accounts, missing keys and unclaimed domains', async () => {
			await claim('mine.test', ann.key);
			expectError(await server.api('/api/domains/mine.test', { method: 'DELETE', key: bob.key }), 403);
			expectError(await server.api('/api/domains/mine.test', { method: 'DELETE' }), 401);
			expectError(await server.api('/api/domains/nobody.test', { method: 'DELETE', key: ann.key }), 404);
			expect(await server.domains.get('mine.test')).toBeDefined();
		});
	});
});
