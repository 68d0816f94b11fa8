import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ErrorBody } from 'mailroom-server/dist/schemas/error';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { enc, expectError } from '../../helpers/messages';

/**
 * Webhook URLs the SSRF policy would never deliver to for their owner are refused when they are set (400, naming the field),
 * on every route that sets one. No request is made to them: the receiver below is never listened on.
 */
describe('webhook targets checked when they are set', () => {
	const port = 9; // discard: nothing is ever sent there

	/** Reserves `email` with `key`, then sets its webhook: the answer to the second. */
	const setWebhook = async (server: TestMailroom, key: string, email: string, webhook: string) => {
		expect((await server.api(`/api/addresses/${enc(email)}`, { method: 'POST', key })).status).toBe(200);
		return server.api<ErrorBody>(`/api/private-address-forwarding/${enc(email)}`, { method: 'PUT', key, body: { webhook } });
	};

	describe('the defaults: private targets for admin accounts only, no host listed', () => {
		let server: TestMailroom;
		let member: { id: string; key: string };
		beforeAll(async () => {
			server = await startTestMailroom({ webhookAllowHosts: [] });
			member = await server.createAccount('member');
		});
		afterAll(() => server.stop());

		it("refuses an ordinary account's webhook to loopback, by address in any form or by name, on each route", async () => {
			expectError(
				await setWebhook(server, member.key, 'literal@targets.test', `http://127.0.0.1:${port}/hook`),
				400,
				/^webhook would never be delivered: 127\.0\.0\.1 is a loopback address \(this machine\): only the webhooks of admin accounts/,
			);
			expectError(
				await setWebhook(server, member.key, 'compat@targets.test', `http://[::127.0.0.1]:${port}/`),
				400,
				/^webhook would never be delivered: ::7f00:1 \(the IPv4 address 127\.0\.0\.1\) is a loopback address/,
			);
			const put = await server.api<ErrorBody>(`/api/addresses/${enc('literal@targets.test')}`, {
				method: 'PUT',
				key: member.key,
				body: { webhookSlack: `http://10.1.2.3/slack` },
			});
			expectError(put, 400, /^webhookSlack would never be delivered: 10\.1\.2\.3 is a private network address/, 'webhookSlack');
			const subscription = await server.api<ErrorBody>(`/api/addresses/${enc('literal@targets.test')}/webhooks`, {
				method: 'POST',
				key: member.key,
				body: { url: `http://localhost:${port}/sub` },
			});
			expectError(subscription, 400, /^url would never be delivered: localhost resolves only to refused addresses/, 'url');
			const reserve = await server.api<ErrorBody>(`/api/addresses/${enc('slack@targets.test')}`, {
				method: 'POST',
				key: member.key,
				body: { webhook: `http://127.0.0.1:${port}/` },
			});
			expectError(reserve, 400, /^webhook would never be delivered/, 'webhook');
			expect((await server.api(`/api/addresses/${enc('slack@targets.test')}`, { key: member.key })).status).toBe(404); // nor reserved
		});

		it('refuses metadata and link-local targets to every account, admin included, in IPv4 and IPv6 forms', async () => {
			expect((await setWebhook(server, server.adminKey, 'meta@targets.test', 'http://169.254.169.254/latest/meta-data/')).body).toEqual({
				error: 'Bad Request',
				message: 'webhook would never be delivered: 169.254.169.254 is a link-local address, which webhooks may not reach',
				field: 'webhook',
			});
			for (const url of [
				'http://169.254.169.254/latest/meta-data/',
				'http://[::169.254.169.254]/',
				'http://[::ffff:169.254.169.254]/',
				'http://[64:ff9b::a9fe:a9fe]/',
				'http://[fd00:ec2::254]/',
				'http://100.100.100.200/',
				'http://0.0.0.0/',
			])
				expectError(await setWebhook(server, server.adminKey, 'meta@targets.test', url), 400, /, which webhooks may not reach$/);
		});

		it("takes an admin account's webhook to loopback, and anyone's to a public address or a name that does not resolve yet", async () => {
			expect((await setWebhook(server, server.adminKey, 'admin@targets.test', `http://127.0.0.1:${port}/`)).status).toBe(200);
			expect((await setWebhook(server, member.key, 'public@targets.test', 'https://93.184.216.34/hook')).status).toBe(200);
			expect((await setWebhook(server, member.key, 'later@targets.test', 'http://n8n.invalid:5678/webhook')).status).toBe(200);
		});
	});

	it('--webhook-allow-hosts opens the listed host, and only it, to every account', async () => {
		const server = await startTestMailroom({ webhookAllowHosts: ['localhost'] });
		try {
			const { key } = await server.createAccount('n8n-team');
			expect((await setWebhook(server, key, 'listed@targets.test', `http://localhost:${port}/listed`)).status).toBe(200);
			expectError(await setWebhook(server, key, 'unlisted@targets.test', `http://127.0.0.1:${port}/`), 400, /127\.0\.0\.1 is a loopback/);
		} finally {
			await server.stop();
		}
	});

	it('--webhook-allow-private false refuses private targets to admin accounts too', async () => {
		const server = await startTestMailroom({ webhookAllowPrivate: false, webhookAllowHosts: [] });
		try {
			expectError(
				await setWebhook(server, server.adminKey, 'off@targets.test', `http://127.0.0.1:${port}/`),
				400,
				/127\.0\.0\.1 is a loopback address \(this machine\): --webhook-allow-private is false and --webhook-allow-hosts does not list the host$/,
			);
		} finally {
			await server.stop();
		}
	});
});
