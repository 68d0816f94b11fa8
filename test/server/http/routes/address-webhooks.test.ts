import { describe, expect, it } from '@jest/globals';
import type { ForwardingRecord } from 'mailroom-server/dist/schemas/address';
import type { WebhookSubscription } from 'mailroom-server/dist/schemas/webhook';
import { MAX_SUBSCRIPTIONS } from 'mailroom-server/dist/schemas/webhook';
import { ID_PATTERN } from 'mailroom-server/dist/store/ids';
import { enc, expectError } from '../../../helpers/messages';
import { subscribe, webhookSetup } from '../../../helpers/webhooks';
import { queryValue } from '../../../helpers/database';

const path = (email: string, id?: string) => `/api/addresses/${enc(email)}/webhooks${id ? `/${id}` : ''}`;

describe('POST, GET and DELETE /api/addresses/:email/webhooks', () => {
	const setup = webhookSetup();

	it("adds, lists and removes an address's subscriptions, beside and without touching its webhook", async () => {
		const { server, account: alice } = setup;
		const email = 'subs@routes.test';
		const reserved = await server.api<ForwardingRecord>(`/api/addresses/${enc(email)}`, {
			method: 'POST',
			key: alice.key,
			body: { webhook: 'https://own.example.org/hook' },
		});
		expect(reserved.status).toBe(200);

		const first = await subscribe(server, alice.key, 'Subs@Routes.test', { url: 'https://one.example.org/in' });
		expect(first).toEqual({
			_id: expect.stringMatching(new RegExp(ID_PATTERN)),
			address: email,
			url: 'https://one.example.org/in',
			filter: null,
			created: expect.any(String),
		});
		expect(new Date(first.created).toISOString()).toBe(first.created);
		const second = await subscribe(server, alice.key, email, {
			url: 'https://two.example.org/in',
			filter: { from: 'billing@', subject: 'Invoice', hasAttachments: true },
		});
		expect(second.filter).toEqual({ from: 'billing@', subject: 'Invoice', hasAttachments: true });
		// A filter with no part set filters nothing.
		const third = await subscribe(server, alice.key, email, { url: 'https://three.example.org/in', filter: {} });
		expect(third.filter).toBeNull();

		const listed = await server.api<WebhookSubscription[]>(path(email), { key: alice.key });
		expect(listed.status).toBe(200);
		expect(listed.body).toEqual([first, second, third]);

		const removed = await server.api<WebhookSubscription>(path(email, second._id), { method: 'DELETE', key: alice.key });
		expect(removed).toMatchObject({ status: 200, body: second });
		expect((await server.api<WebhookSubscription[]>(path(email), { key: alice.key })).body).toEqual([first, third]);
		expectError(await server.api(path(email, second._id), { method: 'DELETE', key: alice.key }), 404, /no webhook subscription/);

		const record = await server.api<ForwardingRecord>(`/api/addresses/${enc(email)}`, { key: alice.key });
		expect(record.body.webhook).toBe('https://own.example.org/hook');
	});

	it("refuses callers without a key (401), another account's address (403) and an unreserved one (404)", async () => {
		const { server, account: alice } = setup;
		const bob = await server.createAccount('bob-subs');
		expect((await server.api(`/api/addresses/${enc('bobs@routes.test')}`, { method: 'POST', key: bob.key })).status).toBe(200);
		const bobs = await subscribe(server, bob.key, 'bobs@routes.test', { url: 'https://bob.example.org/in' });
		const body = { url: 'https://alice.example.org/in' };

		expectError(await server.api(path('bobs@routes.test'), { method: 'POST', body }), 401);
		expectError(await server.api(path('bobs@routes.test'), { method: 'POST', key: alice.key, body }), 403, /reserved by another account/);
		expectError(await server.api(path('bobs@routes.test'), { key: alice.key }), 403);
		expectError(await server.api(path('bobs@routes.test', bobs._id), { method: 'DELETE', key: alice.key }), 403);
		expectError(await server.api(path('nobody@routes.test'), { method: 'POST', key: alice.key, body }), 404, /is not reserved/);
		expectError(await server.api(path('nobody@routes.test'), { key: alice.key }), 404);
		expect((await server.api<WebhookSubscription[]>(path('bobs@routes.test'), { key: bob.key })).body).toEqual([bobs]);
	});

	it('refuses bad bodies with a 400 a person understands, naming an unknown field', async () => {
		const { server, account: alice } = setup;
		const email = 'bad@routes.test';
		expect((await server.api(`/api/addresses/${enc(email)}`, { method: 'POST', key: alice.key })).status).toBe(200);
		const post = (body: unknown) => server.api(path(email), { method: 'POST', key: alice.key, body });

		expectError(await post({}), 400, /url/);
		expectError(await post({ url: 'ftp://files.example.org/' }), 400, /url/);
		expectError(await post({ url: 'not a url' }), 400, /url/);
		expectError(await post({ url: `https://example.org/${'x'.repeat(2048)}` }), 400, /url/);
		expectError(await post({ url: 'https://example.org/', secret: 'x' }), 400, /^secret is not a field of this request/, 'secret');
		expectError(
			await post({ url: 'https://example.org/', filter: { to: 'me' } }),
			400,
			/^filter\.to is not a field of filter/,
			'filter.to',
		);
		expectError(await post({ url: 'https://example.org/', filter: { hasAttachments: 'yes' } }), 400, /hasAttachments/);
		expectError(await post({ url: 'https://example.org/', filter: { subject: '' } }), 400, /subject/);
		expectError(await server.api(path(email, 'not%20an%20id!'), { method: 'DELETE', key: alice.key }), 400);
		expectError(await server.api(path(email, 'unknown-id'), { method: 'DELETE', key: alice.key }), 404);
		expect((await server.api<WebhookSubscription[]>(path(email), { key: alice.key })).body).toEqual([]);
	});

	it(`keeps at most ${MAX_SUBSCRIPTIONS} per address (409 beyond), and releasing the address removes them`, async () => {
		const { server, account: alice } = setup;
		const email = 'many@routes.test';
		expect((await server.api(`/api/addresses/${enc(email)}`, { method: 'POST', key: alice.key })).status).toBe(200);
		for (let index = 0; index < MAX_SUBSCRIPTIONS; index++)
			await subscribe(server, alice.key, email, { url: `https://example.org/${index}` });
		expectError(
			await server.api(path(email), { method: 'POST', key: alice.key, body: { url: 'https://example.org/one-more' } }),
			409,
			new RegExp(`has ${MAX_SUBSCRIPTIONS} webhook subscriptions already`),
		);

		expect((await server.api(`/api/addresses/${enc(email)}`, { method: 'DELETE', key: alice.key })).status).toBe(200);
		expect(await queryValue(server, 'SELECT count(*) FROM webhook_subscriptions WHERE address = ?', [email])).toBe(0);
		expect((await server.api(`/api/addresses/${enc(email)}`, { method: 'POST', key: alice.key })).status).toBe(200);
		expect((await server.api<WebhookSubscription[]>(path(email), { key: alice.key })).body).toEqual([]);
	});
});
