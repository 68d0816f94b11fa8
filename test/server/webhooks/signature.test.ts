import { describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { reserveForwarding } from '../../helpers/addresses';
import { sendMail } from '../../helpers/messages';
import { waitFor } from '../../helpers/webhook-receiver';
import { signatureHeaders, webhookSecret, webhookSetup } from '../../helpers/webhooks';

describe('webhook signing secret', () => {
	const setup = webhookSetup();

	it('is per account, stable until rotated, and both secrets verify during the overlap', async () => {
		const { server, receiver } = setup;
		const frank = await server.createAccount('frank');
		const grace = await server.createAccount('grace');
		const secret = await webhookSecret(server, frank.key);
		expect(await webhookSecret(server, frank.key)).toBe(secret);
		expect(await webhookSecret(server, grace.key)).not.toBe(secret);
		expect((await server.api('/api/webhook-secret')).status).toBe(401);

		const rotated = await server.api<{ secret: string }>('/api/webhook-secret/rotate', { method: 'POST', key: frank.key });
		expect(rotated.status).toBe(200);
		expect(rotated.body.secret).toMatch(/^whsec_/);
		expect(rotated.body.secret).not.toBe(secret);
		expect(await webhookSecret(server, frank.key)).toBe(rotated.body.secret);

		await reserveForwarding(server, frank.key, 'signed@hooks.test', { webhook: receiver.url });
		await sendMail(server, { to: 'signed@hooks.test' });
		const request = await waitFor(() => receiver.requests[0], 'the webhook');
		const headers = signatureHeaders(request);
		expect(() => new Webhook(rotated.body.secret).verify(request.body, headers)).not.toThrow();
		expect(() => new Webhook(secret).verify(request.body, headers)).not.toThrow();
		const graceSecret = await webhookSecret(server, grace.key);
		expect(() => new Webhook(graceSecret).verify(request.body, headers)).toThrow();
	});
});
