import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ForwardingRecord } from 'mailroom-server/dist/schemas/address';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom, type TestMailroom } from '../../../helpers/mailroom';
import { enc, expectError, sendMail } from '../../../helpers/messages';

/** What GET /api/addresses/:email/availability answers. */
interface Availability {
	email: string;
	available: boolean;
	owned: boolean;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const forwardingPath = (email: string) => `/api/private-address-forwarding/${enc(email)}`;

describe('Addresses API', () => {
	let server: TestMailroom;
	let ann: { id: string; key: string };
	let bob: { id: string; key: string };
	beforeAll(async () => {
		server = await startTestMailroom();
		ann = await server.createAccount('ann');
		bob = await server.createAccount('bob');
	});
	afterAll(() => server.stop());

	const path = (email: string, suffix = '') => `/api/addresses/${enc(email)}${suffix}`;

	describe('POST /api/addresses/:email (reserve)', () => {
		it('reserves a free address, lower-cased, with the full record of spec 2.2', async () => {
			const reserved = await server.api<ForwardingRecord>(path('New.One@Example.test'), { method: 'POST', key: ann.key });
			expect(reserved.status).toBe(200);
			expect(reserved.body).toEqual({
				_id: 'new.one@example.test',
				owner: ann.id,
				forward: null,
				enablews: false,
				webhook: null,
				webhookSlack: null,
				webhookSlackToFrom: null,
				catchAll: null,
				password: null,
				info: '',
				created: expect.any(String),
				updated: reserved.body.created,
			});
		});

		it('takes forwarding settings in the body', async () => {
			const reserved = await server.api<ForwardingRecord>(path('configured@example.test'), {
				method: 'POST',
				key: ann.key,
				body: { webhook: 'https://hooks.example.test/in', forward: 'Elsewhere@Example.test', info: 'signup tests', enablews: true },
			});
			expect(reserved.status).toBe(200);
			expect(reserved.body).toMatchObject({
				webhook: 'https://hooks.example.test/in',
				forward: 'elsewhere@example.test',
				info: 'signup tests',
				enablews: true,
			});
		});

		it('answers 200 with the record unchanged when the caller already holds the address', async () => {
			const first = await server.api(path('twice@example.test'), { method: 'POST', key: ann.key, body: { info: 'first' } });
			const again = await server.api(path('twice@example.test'), { method: 'POST', key: ann.key, body: { info: 'second' } });
			expect(again.status).toBe(200);
			expect(again.body).toEqual(first.body);
		});

		it("refuses another account's address with 403 and leaves it alone", async () => {
			await server.api(path('taken@example.test'), { method: 'POST', key: ann.key });
			expectError(await server.api(path('taken@example.test'), { method: 'POST', key: bob.key }), 403, /another account/);
			expect((await server.api<ForwardingRecord>(path('taken@example.test'), { key: ann.key })).body.owner).toBe(ann.id);
		});

		it('needs a key (401) and a valid address and body (400)', async () => {
			expectError(await server.api(path('nokey@example.test'), { method: 'POST' }), 401);
			expectError(
				await server.api(path('not-an-address'), { method: 'POST', key: ann.key }),
				400,
				/^"not-an-address" is not an email address$/,
			);
			expectError(
				await server.api(path('bad-body@example.test'), { method: 'POST', key: ann.key, body: { webhook: 'ftp://x.test' } }),
				400,
			);
			expectError(
				await server.api(path('bad-body@example.test'), { method: 'POST', key: ann.key, body: { forward: 'bad-body@example.test' } }),
				400,
				/itself/,
			);
			// A refused body reserves nothing.
			expect((await server.api(path('bad-body@example.test'), { key: ann.key })).status).toBe(404);
		});
	});

	describe('GET /api/addresses and /api/addresses/:email', () => {
		it("lists only the caller's addresses, sorted", async () => {
			await server.api(path('bob-list@example.test'), { method: 'POST', key: bob.key });
			const list = await server.api<ForwardingRecord[]>('/api/addresses', { key: bob.key });
			expect(list.status).toBe(200);
			expect(list.body.map((record) => record._id)).toEqual(['bob-list@example.test']);
			expectError(await server.api('/api/addresses'), 401);
		});

		it('gets one record: 200 for the owner, 403 for another account, 401 without a key, 404 when not reserved', async () => {
			await server.api(path('one@example.test'), { method: 'POST', key: ann.key });
			expect((await server.api<ForwardingRecord>(path('ONE@example.test'), { key: ann.key })).body._id).toBe('one@example.test');
			expectError(await server.api(path('one@example.test'), { key: bob.key }), 403);
			expectError(await server.api(path('one@example.test')), 401);
			expectError(await server.api(path('nobody@example.test'), { key: ann.key }), 404, /not reserved/);
			expectError(await server.api(path('a@@b'), { key: ann.key }), 400);
		});
	});

	describe('PUT /api/addresses/:email and PUT /api/private-address-forwarding/:email', () => {
		it('updates only the fields sent and refreshes updated', async () => {
			const reserved = await server.api<ForwardingRecord>(path('update@example.test'), {
				method: 'POST',
				key: ann.key,
				body: { info: 'keep me' },
			});
			await pause(5);
			const updated = await server.api<ForwardingRecord>(path('update@example.test'), {
				method: 'PUT',
				key: ann.key,
				body: {
					webhook: 'http://127.0.0.1:9/hook',
					webhookSlack: 'https://hooks.slack.test/services/T/B/X',
					webhookSlackToFrom: true,
					enablews: true,
				},
			});
			expect(updated.status).toBe(200);
			expect(updated.body).toMatchObject({
				info: 'keep me',
				webhook: 'http://127.0.0.1:9/hook',
				webhookSlack: 'https://hooks.slack.test/services/T/B/X',
				webhookSlackToFrom: true,
				enablews: true,
				forward: null,
				created: reserved.body.created,
			});
			expect(Date.parse(updated.body.updated)).toBeGreaterThan(Date.parse(reserved.body.updated));
		});

		it('clears webhook, forward and webhookSlack with "" or null, through either route', async () => {
			await server.api(path('clear@example.test'), {
				method: 'POST',
				key: ann.key,
				body: { webhook: 'https://a.test/h', forward: 'x@example.test', webhookSlack: 'https://hooks.slack.test/s' },
			});
			const viaPut = await server.api(path('clear@example.test'), { method: 'PUT', key: ann.key, body: { webhook: '', forward: null } });
			expect(viaPut.body).toMatchObject({ webhook: null, forward: null, webhookSlack: 'https://hooks.slack.test/s' });
			const viaLegacy = await server.api(forwardingPath('clear@example.test'), {
				method: 'PUT',
				key: ann.key,
				body: { webhookSlack: null, enablews: true, info: 'set through the legacy route' },
			});
			expect(viaLegacy.status).toBe(200);
			expect(viaLegacy.body).toMatchObject({
				webhook: null,
				forward: null,
				webhookSlack: null,
				enablews: true,
				info: 'set through the legacy route',
			});
		});

		it('validates the body the same way on both routes', async () => {
			await server.api(path('strict@example.test'), { method: 'POST', key: ann.key });
			for (const route of [path('strict@example.test'), forwardingPath('strict@example.test')]) {
				expectError(await server.api(route, { method: 'PUT', key: ann.key, body: { webhook: 'not a url' } }), 400);
				expectError(await server.api(route, { method: 'PUT', key: ann.key, body: { webhookSlack: 'javascript:alert(1)' } }), 400);
				expectError(await server.api(route, { method: 'PUT', key: ann.key, body: { forward: 'nope' } }), 400);
				expectError(await server.api(route, { method: 'PUT', key: ann.key, body: { enablews: 'yes please' } }), 400);
				expectError(await server.api(route, { method: 'PUT', key: ann.key, body: { info: 'x'.repeat(1001) } }), 400);
			}
		});

		it('refuses a field the body does not take (a typo), naming it, and changes nothing', async () => {
			await server.api(path('typo@example.test'), { method: 'POST', key: ann.key, body: { info: 'kept' } });
			for (const route of [path('typo@example.test'), forwardingPath('typo@example.test')]) {
				const typo = await server.api(route, {
					method: 'PUT',
					key: ann.key,
					body: { webhok: 'https://example.org/hook', info: 'changed' },
				});
				expectError(typo, 400, /webhok/);
			}
			const record = await server.api<ForwardingRecord>(path('typo@example.test'), { key: ann.key });
			expect(record.body).toMatchObject({ webhook: null, info: 'kept' });
		});

		it('refuses other accounts (403), callers without a key (401) and unreserved addresses (404)', async () => {
			await server.api(path('guarded@example.test'), { method: 'POST', key: ann.key });
			for (const route of [path('guarded@example.test'), forwardingPath('guarded@example.test')]) {
				expectError(await server.api(route, { method: 'PUT', key: bob.key, body: { webhook: 'https://evil.test/' } }), 403);
				expectError(await server.api(route, { method: 'PUT', body: { webhook: 'https://evil.test/' } }), 401);
			}
			expectError(await server.api(path('unreserved@example.test'), { method: 'PUT', key: ann.key, body: { info: 'x' } }), 404);
			expect((await server.api<ForwardingRecord>(path('guarded@example.test'), { key: ann.key })).body.webhook).toBeNull();
		});
	});

	describe('DELETE /api/addresses/:email (release)', () => {
		it('releases the address: its mail becomes public again and stays', async () => {
			await server.api(path('release@example.test'), { method: 'POST', key: ann.key });
			await sendMail(server, { to: 'release@example.test' });
			expectError(await server.api(path('release@example.test', '/messages')), 401);
			const released = await server.api<ForwardingRecord>(path('release@example.test'), { method: 'DELETE', key: ann.key });
			expect(released.status).toBe(200);
			expect(released.body._id).toBe('release@example.test');
			expect((await server.api(path('release@example.test'), { key: ann.key })).status).toBe(404);
			const list = await server.api<MessageRecord[]>(path('release@example.test', '/messages'));
			expect(list.status).toBe(200);
			expect(list.body).toHaveLength(1);
		});

		it('with deleteAddressMessages=true also deletes its mail', async () => {
			await server.api(path('purge@example.test'), { method: 'POST', key: ann.key });
			await sendMail(server, { to: 'purge@example.test' });
			await sendMail(server, { to: 'purge@example.test' });
			expect((await server.api(path('purge@example.test', '/messages'), { key: ann.key })).body).toHaveLength(2);
			const released = await server.api(path('purge@example.test', '?deleteAddressMessages=true'), { method: 'DELETE', key: ann.key });
			expect(released.status).toBe(200);
			expect((await server.api(path('purge@example.test', '/messages'))).body).toEqual([]);
		});

		it('refuses other accounts, missing keys, unreserved addresses and bad parameters', async () => {
			await server.api(path('keep@example.test'), { method: 'POST', key: ann.key });
			expectError(await server.api(path('keep@example.test'), { method: 'DELETE', key: bob.key }), 403);
			expectError(await server.api(path('keep@example.test'), { method: 'DELETE' }), 401);
			expectError(await server.api(path('keep@example.test', '?deleteAddressMessages=maybe'), { method: 'DELETE', key: ann.key }), 400);
			expectError(await server.api(path('never@example.test'), { method: 'DELETE', key: ann.key }), 404);
			expect((await server.api(path('keep@example.test'), { key: ann.key })).status).toBe(200);
		});
	});

	describe('GET /api/addresses/:email/availability', () => {
		it('says whether the address is free, without a key too', async () => {
			await server.api(path('held@example.test'), { method: 'POST', key: ann.key });
			expect((await server.api<Availability>(path('free@example.test', '/availability'))).body).toEqual({
				email: 'free@example.test',
				available: true,
				owned: false,
			});
			expect((await server.api<Availability>(path('Held@example.test', '/availability'))).body).toEqual({
				email: 'held@example.test',
				available: false,
				owned: true,
			});
			expect((await server.api<Availability>(path('held@example.test', '/availability'), { key: ann.key })).body).toEqual({
				email: 'held@example.test',
				available: false,
				owned: true,
			});
			expectError(await server.api(path('nope', '/availability')), 400);
			expectError(await server.api(path('free@example.test', '/availability'), { key: 'mr_unknown' }), 401);
		});

		it("counts addresses of an owned domain as owned, and available to the domain's owner only", async () => {
			await server.domains.claim('ann-domain.test', ann.id);
			expect((await server.api(path('x@ann-domain.test', '/availability'), { key: ann.key })).body).toMatchObject({
				available: true,
				owned: true,
			});
			expect((await server.api(path('x@ann-domain.test', '/availability'), { key: bob.key })).body).toMatchObject({
				available: false,
				owned: true,
			});
			expect((await server.api(path('x@ann-domain.test', '/availability'))).body).toMatchObject({ available: false, owned: true });
			expectError(await server.api(path('x@ann-domain.test'), { method: 'POST', key: bob.key }), 403);
			expect((await server.api(path('x@ann-domain.test'), { method: 'POST', key: ann.key })).status).toBe(200);
		});
	});

	describe('POST /api/private-addresses-bulk', () => {
		const bulk = (key: string | undefined, addresses: unknown) =>
			server.api<ForwardingRecord[]>('/api/private-addresses-bulk', { method: 'POST', key, body: { addresses } });

		it('reserves every address at once, including ones the caller already holds', async () => {
			await server.api(path('bulk-held@example.test'), { method: 'POST', key: ann.key });
			const reserved = await bulk(ann.key, ['Bulk-1@example.test', 'bulk-2@example.test', 'bulk-held@example.test', 'bulk-1@example.test']);
			expect(reserved.status).toBe(200);
			expect(reserved.body.map((record) => [record._id, record.owner])).toEqual([
				['bulk-1@example.test', ann.id],
				['bulk-2@example.test', ann.id],
				['bulk-held@example.test', ann.id],
			]);
		});

		it('reserves none when one is refused', async () => {
			await server.api(path('bob-bulk@example.test'), { method: 'POST', key: bob.key });
			expectError(await bulk(ann.key, ['bulk-3@example.test', 'bob-bulk@example.test']), 403);
			expectError(await bulk(ann.key, ['bulk-4@example.test', 'not an address']), 400);
			for (const email of ['bulk-3@example.test', 'bulk-4@example.test']) {
				expect((await server.api<Availability>(path(email, '/availability'))).body.available).toBe(true);
			}
		});

		it('takes 1 to 100 addresses and needs a key', async () => {
			const many = Array.from({ length: 101 }, (_, i) => `many-${i}@example.test`);
			expectError(await bulk(ann.key, many), 400);
			expectError(await bulk(ann.key, []), 400);
			expectError(await bulk(ann.key, [{ address: 'one@example.test' }]), 400);
			expectError(await bulk(undefined, ['x@example.test']), 401);
			expect((await bulk(ann.key, many.slice(0, 100))).body).toHaveLength(100);
		});
	});

	/** PUT /api/private-address-forwarding/:email (spec 4.4) and the 2.2 record it returns. */
	describe('private address forwarding', () => {
		let owner: { id: string; key: string };
		let other: { id: string; key: string };
		const put = (email: string, body: unknown, key: string | null = owner.key) =>
			server.api<ForwardingRecord>(forwardingPath(email), { method: 'PUT', key: key ?? undefined, body });

		beforeAll(async () => {
			owner = await server.createAccount('hook-owner');
			other = await server.createAccount('hook-other');
		});

		it('returns the 2.2 record with exactly its fields and JSON types', async () => {
			const reserved = await server.api<ForwardingRecord>('/api/addresses/types@hooks.test', { method: 'POST', key: owner.key });
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
			const reserved = (await server.api<ForwardingRecord>('/api/addresses/Set@Hooks.test', { method: 'POST', key: owner.key })).body;
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
			expect((await server.api<ForwardingRecord>('/api/addresses/set@hooks.test', { key: owner.key })).body).toEqual(second.body);
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
			expect((await server.api<ForwardingRecord>(`/api/addresses/${email}`, { key: owner.key })).body.webhook).toBeNull();
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
			expect((await server.api<ForwardingRecord>('/api/addresses/strict@hooks.test', { key: owner.key })).body.webhook).toBe(
				'https://example.org/kept',
			);
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
			expect((await server.api<ForwardingRecord>('/api/addresses/theirs@hooks.test', { key: other.key })).body.webhook).toBeNull();
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
});
