import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INodeParameters } from 'n8n-workflow';
import type { WebhookSubscription } from 'mailroom-server/dist/schemas/webhook';
import { enc, sendMail } from '../../../helpers/messages';
import { waitFor, WebhookReceiver } from '../../../helpers/webhook-receiver';
import { jsonBody } from '../../../helpers/webhooks';
import { nodeJson, startNodeFixture, type NodeFixture } from '../../../helpers/n8n';

/** The Webhook Subscription operations in n8n-core's real ExecuteContext against a real server. */
describe('Mailroom node: Webhook Subscription', () => {
	let fixture: NodeFixture;
	let receiver: WebhookReceiver;
	beforeAll(async () => {
		fixture = await startNodeFixture();
		receiver = new WebhookReceiver();
		await receiver.listen();
	});
	afterAll(async () => {
		await receiver.close();
		await fixture.stop();
	});

	const subscription = (operation: string, parameters: INodeParameters = {}) =>
		nodeJson(fixture.n8n, { resource: 'webhookSubscription', operation, ...parameters });

	it('Create (with Filters), Get Many, Delete; the subscription gets the mail that passes its filter', async () => {
		const { server, account } = fixture;
		const email = 'node-subs@example.test';
		expect((await server.api(`/api/addresses/${enc(email)}`, { method: 'POST', key: account.key })).status).toBe(200);

		const [created] = await subscription('create', {
			email,
			url: ` ${receiver.url}/invoices `,
			filters: { subject: 'Invoice', from: ' ', hasAttachments: true },
		});
		expect(created).toMatchObject({
			address: email,
			url: `${receiver.url}/invoices`,
			filter: { subject: 'Invoice', hasAttachments: true },
		});
		const [plain] = await subscription('create', { email, url: `${receiver.url}/all` });
		expect(plain.filter).toBeNull();

		expect(await subscription('getAll', { email, returnAll: true })).toEqual([created, plain]);
		expect(await subscription('getAll', { email, limit: 1 })).toEqual([created]);

		const [invoice] = await sendMail(server, {
			to: email,
			subject: 'Invoice 7',
			attachments: [{ filename: 'invoice.pdf', content: 'pdf' }],
		});
		await sendMail(server, { to: email, subject: 'Hello' });
		await waitFor(() => receiver.requests.length >= 3, 'three deliveries');
		expect(receiver.requests.filter((request) => request.url === '/invoices').map((request) => jsonBody(request)._id)).toEqual([invoice]);

		const [deleted] = await subscription('delete', { email, subscriptionId: ` ${created._id as string} ` });
		expect(deleted).toEqual(created);
		const left = await server.api<WebhookSubscription[]>(`/api/addresses/${enc(email)}/webhooks`, { key: account.key });
		expect(left.body).toEqual([plain]);
	});

	it('Email Address is picked from the list or typed (1.2), or the plain string of version 1.1', async () => {
		const email = 'picked-subs@example.test';
		expect((await fixture.server.api(`/api/addresses/${enc(email)}`, { method: 'POST', key: fixture.account.key })).status).toBe(200);
		const [made] = await subscription('create', { email: { __rl: true, mode: 'list', value: email }, url: `${receiver.url}/picked` });
		expect(made).toMatchObject({ address: email, url: `${receiver.url}/picked` });
		expect(await subscription('getAll', { email: { __rl: true, mode: 'email', value: email }, returnAll: true })).toEqual([made]);
		expect(
			await nodeJson(fixture.n8n, { resource: 'webhookSubscription', operation: 'getAll', email, returnAll: true }, { version: 1.1 }),
		).toEqual([made]);
	});

	it("the server's errors: an address of no one (404), an unknown subscription (404), a bad URL (400)", async () => {
		await expect(subscription('getAll', { email: 'nobody@example.test', returnAll: true })).rejects.toMatchObject({
			httpCode: '404',
			message: expect.stringContaining('is not reserved'),
		});
		const email = 'errors@example.test';
		await fixture.server.api(`/api/addresses/${enc(email)}`, { method: 'POST', key: fixture.account.key });
		await expect(subscription('delete', { email, subscriptionId: 'NoSuchSubscript' })).rejects.toMatchObject({ httpCode: '404' });
		await expect(subscription('create', { email, url: 'ftp://example.org/' })).rejects.toMatchObject({
			httpCode: '400',
			message: expect.stringMatching(/^URL /),
		});
	});
});
