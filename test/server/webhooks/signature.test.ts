import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { WebhookReceiver, waitFor } from '../../helpers/webhook-receiver';
import { deliveredMessageId, FAST, signatureHeaders, webhookSecret, withWebhook } from '../../helpers/effects-webhooks';

describe('webhook signing secret', () => {
	let server: TestMailroom;
	let receiver: WebhookReceiver;
	beforeAll(async () => {
		server = await startTestMailroom(FAST);
		receiver = new WebhookReceiver();
		await receiver.listen();
	});
	afterAll(async () => {
		await server.stop();
		await receiver.close();
	});

	it('is per account, stable until rotated, and both secrets verify during the overlap', async () => {
		const frank = server.createAccount('frank');
		const grace = server.createAccount('grace');
		const secret = await webhookSecret(server, frank.key);
		expect(await webhookSecret(server, frank.key)).toBe(secret);
		expect(await webhookSecret(server, grace.key)).not.toBe(secret);
		expect((await server.api('/api/webhook-secret')).status).toBe(401);

		const rotated = await server.api<{ secret: string }>('/api/webhook-secret/rotate', { method: 'POST', key: frank.key });
		expect(rotated.status).toBe(200);
		expect(rotated.body.secret).toMatch(/^whsec_/);
		expect(rotated.body.secret).not.toBe(secret);
		expect(await webhookSecret(server, frank.key)).toBe(rotated.body.secret);

		await withWebhook(server, frank.key, 'signed@hooks.test', receiver.url);
		await deliveredMessageId(server, 'signed@hooks.test');
		const request = await waitFor(() => receiver.requests[0], 'the webhook');
		const headers = signatureHeaders(request);
		expect(() => new Webhook(rotated.body.secret).verify(request.body, headers)).not.toThrow();
		expect(() => new Webhook(secret).verify(request.body, headers)).not.toThrow();
		const graceSecret = await webhookSecret(server, grace.key);
		expect(() => new Webhook(graceSecret).verify(request.body, headers)).toThrow();
	});
});
