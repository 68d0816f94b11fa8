import { describe, expect, it } from '@jest/globals';
import { reserveForwarding } from '../../helpers/addresses';
import { enc, sendMail } from '../../helpers/messages';
import { waitFor } from '../../helpers/webhook-receiver';
import {
	activity,
	firstPost,
	jsonBody,
	subscribe,
	verifiedPayload,
	webhookSecret,
	webhookSetup,
	webhookStatus,
} from '../../helpers/webhooks';
import { query, queryColumn } from '../../helpers/database';

describe("the webhooks of a domain's catch-all address", () => {
	const setup = webhookSetup();

	it("uses the domain's catch-all webhook for addresses without one, never for another account's address", async () => {
		const { server, receiver, account: alice } = setup;
		const bob = await server.createAccount('bob-catchall');
		await reserveForwarding(server, alice.key, 'all@catch.test', { webhook: `${receiver.url}/catch-all` });
		await query(server, 'UPDATE addresses SET catch_all = ? WHERE email = ?', ['catch.test', 'all@catch.test']);
		// Reserved by alice but without a webhook: the catch-all's applies.
		expect((await server.api(`/api/addresses/${enc('nohook@catch.test')}`, { method: 'POST', key: alice.key })).status).toBe(200);
		// Reserved by bob: alice's catch-all must not receive it.
		await query(
			server,
			"INSERT INTO addresses (email, owner, created, updated) VALUES ('bobs@catch.test', ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
			[bob.id],
		);

		const [unreserved] = await sendMail(server, { to: 'anyone@catch.test' });
		const [noHook] = await sendMail(server, { to: 'nohook@catch.test' });
		const [bobs] = await sendMail(server, { to: 'bobs@catch.test' });
		await waitFor(() => receiver.requests.length >= 2, 'two catch-all deliveries');
		const ids = receiver.requests.map((request) => jsonBody(request)._id).sort();
		expect(ids).toEqual([unreserved, noHook].sort());
		expect(receiver.requests.every((request) => request.url === '/catch-all')).toBe(true);
		expect((await webhookStatus(server, bob.key, 'bobs@catch.test', bobs)).status).toBe(404);
	});

	it("uses the catch-all address's Slack webhook for addresses of the domain without one", async () => {
		const { server, receiver: slack, account: ann } = setup;
		await server.api('/api/domains/slack-domain.test', { method: 'POST', key: ann.key });
		await server.api('/api/domains/slack-domain.test', { method: 'PUT', key: ann.key, body: { catchAll: 'all@slack-domain.test' } });
		await server.api(`/api/addresses/${enc('all@slack-domain.test')}`, {
			method: 'PUT',
			key: ann.key,
			body: { webhookSlack: `${slack.url}/catch-all` },
		});
		await sendMail(server, { to: 'anyone@slack-domain.test', subject: 'Caught' });
		const post = await firstPost(slack, '/catch-all');
		expect(jsonBody<{ text: string }>(post).text).toMatch(/^New mail for anyone@slack-domain\.test: \*Caught\*/);
	});
});

describe('the webhook subscriptions of an address', () => {
	const setup = webhookSetup();

	it("post each message once to every subscription and once to the address's webhook", async () => {
		const { server, receiver, account: alice } = setup;
		const email = 'three@subs.test';
		await reserveForwarding(server, alice.key, email, { webhook: `${receiver.url}/own` });
		const one = await subscribe(server, alice.key, email, { url: `${receiver.url}/one` });
		const two = await subscribe(server, alice.key, email, { url: `${receiver.url}/two` });
		const [first] = await sendMail(server, { to: email, subject: 'first' });
		const [second] = await sendMail(server, { to: email, subject: 'second' });
		await waitFor(() => receiver.requests.length >= 6, 'six deliveries');
		// Nothing more comes once the queue is empty.
		await new Promise((resolve) => setTimeout(resolve, 300));

		const got = receiver.requests.map((request) => `${request.url} ${jsonBody(request)._id}`).sort();
		expect(got).toEqual([`/one ${first}`, `/one ${second}`, `/own ${first}`, `/own ${second}`, `/two ${first}`, `/two ${second}`].sort());
		// Each its own delivery: its own webhook-id, signed with the account's secret.
		const secret = await webhookSecret(server, alice.key);
		expect(new Set(receiver.requests.map((request) => request.headers['webhook-id'])).size).toBe(6);
		for (const request of receiver.requests) expect(verifiedPayload(secret, request)._id).toMatch(/./);
		// The message's webhook-status is that of the address's own webhook.
		expect((await webhookStatus(server, alice.key, email, first)).body).toMatchObject({ url: `${receiver.url}/own`, subscriptionId: null });
		const entries = await activity(server, alice.key, `?address=${enc(email)}`);
		expect(entries.map((entry) => entry.subscriptionId).sort()).toEqual([null, null, one._id, one._id, two._id, two._id].sort());
	});

	it('post only the mail that passes their filter: every part given must match', async () => {
		const { server, receiver, account: alice } = setup;
		const email = 'filtered@subs.test';
		expect((await server.api(`/api/addresses/${enc(email)}`, { method: 'POST', key: alice.key })).status).toBe(200);
		await subscribe(server, alice.key, email, { url: `${receiver.url}/from`, filter: { from: 'BILLING' } });
		await subscribe(server, alice.key, email, { url: `${receiver.url}/subject`, filter: { subject: 'invoice' } });
		await subscribe(server, alice.key, email, { url: `${receiver.url}/attached`, filter: { hasAttachments: true } });
		await subscribe(server, alice.key, email, { url: `${receiver.url}/plain`, filter: { hasAttachments: false } });
		await subscribe(server, alice.key, email, {
			url: `${receiver.url}/all`,
			filter: { from: 'acme', subject: 'Invoice', hasAttachments: true },
		});
		const pdf = [{ filename: 'invoice.pdf', content: Buffer.from('%PDF-1.4 fake'), contentType: 'application/pdf' }];
		const [byAddress] = await sendMail(server, { from: 'billing@acme.example', to: email, subject: 'Hello' });
		const [byName] = await sendMail(server, { from: '"Billing Team" <team@other.example>', to: email, subject: 'News' });
		const [invoice] = await sendMail(server, { from: 'shop@acme.example', to: email, subject: 'Your INVOICE 42', attachments: pdf });
		const [neither] = await sendMail(server, { from: 'friend@else.example', to: email, subject: 'Lunch?' });
		await waitFor(() => receiver.requests.length >= 8, 'eight deliveries');
		await new Promise((resolve) => setTimeout(resolve, 300));

		const idsAt = (path: string) =>
			receiver.requests
				.filter((request) => request.url === path)
				.map((request) => jsonBody(request)._id)
				.sort();
		expect(idsAt('/from')).toEqual([byAddress, byName].sort());
		expect(idsAt('/subject')).toEqual([invoice]);
		expect(idsAt('/attached')).toEqual([invoice]);
		expect(idsAt('/plain')).toEqual([byAddress, byName, neither].sort());
		expect(idsAt('/all')).toEqual([invoice]);
		expect(receiver.requests).toHaveLength(8);
		// Mail that matches no filter makes no delivery at all.
		expect(await queryColumn(server, 'SELECT url FROM webhook_deliveries WHERE message_id = ?', [neither])).toEqual([
			`${receiver.url}/plain`,
		]);
	});

	it("of a catch-all address get the domain's mail to addresses without subscriptions of their own, never another account's", async () => {
		const { server, receiver, account: alice } = setup;
		await server.api('/api/domains/subs-domain.test', { method: 'POST', key: alice.key });
		await server.api('/api/domains/subs-domain.test', { method: 'PUT', key: alice.key, body: { catchAll: 'all@subs-domain.test' } });
		await subscribe(server, alice.key, 'all@subs-domain.test', { url: `${receiver.url}/catch-all` });
		expect((await server.api(`/api/addresses/${enc('own@subs-domain.test')}`, { method: 'POST', key: alice.key })).status).toBe(200);
		await subscribe(server, alice.key, 'own@subs-domain.test', { url: `${receiver.url}/own` });

		// An address of the domain held by another account (as an old reservation can be): never alice's catch-all's mail.
		const bob = await server.createAccount('bob-subs');
		await query(
			server,
			"INSERT INTO addresses (email, owner, created, updated) VALUES ('bobs@subs-domain.test', ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
			[bob.id],
		);

		const [anyone] = await sendMail(server, { to: 'anyone@subs-domain.test' });
		const [own] = await sendMail(server, { to: 'own@subs-domain.test' });
		await sendMail(server, { to: 'bobs@subs-domain.test' });
		await waitFor(() => receiver.requests.length >= 2, 'two deliveries');
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(receiver.requests.map((request) => `${request.url} ${jsonBody(request)._id}`).sort()).toEqual(
			[`/catch-all ${anyone}`, `/own ${own}`].sort(),
		);
	});
});
