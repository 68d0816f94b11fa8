import { describe, expect, it } from '@jest/globals';
import { reserveForwarding } from '../../helpers/addresses';
import { enc, sendMail } from '../../helpers/messages';
import { waitFor } from '../../helpers/webhook-receiver';
import { firstPost, jsonBody, webhookSetup, webhookStatus } from '../../helpers/webhooks';

describe("the webhooks of a domain's catch-all address", () => {
	const setup = webhookSetup();

	it("uses the domain's catch-all webhook for addresses without one, never for another account's address", async () => {
		const { server, receiver, account: alice } = setup;
		const bob = server.createAccount('bob-catchall');
		await reserveForwarding(server, alice.key, 'all@catch.test', { webhook: `${receiver.url}/catch-all` });
		server.db.prepare('UPDATE addresses SET catch_all = ? WHERE email = ?').run('catch.test', 'all@catch.test');
		// Reserved by alice but without a webhook: the catch-all's applies.
		expect((await server.api(`/api/addresses/${enc('nohook@catch.test')}`, { method: 'POST', key: alice.key })).status).toBe(200);
		// Reserved by bob: alice's catch-all must not receive it.
		server.db
			.prepare(
				"INSERT INTO addresses (email, owner, created, updated) VALUES ('bobs@catch.test', ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
			)
			.run(bob.id);

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
