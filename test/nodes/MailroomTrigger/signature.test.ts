import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { webhookSecret } from '../../helpers/webhooks';
import { postJson, signed, startNodeFixture, type NodeFixture } from '../../helpers/n8n';

/** The Mailroom Trigger's webhook() takes only deliveries signed with the account's secret, within the time tolerance. */
describe('Mailroom Trigger: signature of a delivery', () => {
	let fixture: NodeFixture;
	beforeAll(async () => {
		fixture = await startNodeFixture();
	});
	afterAll(() => fixture.stop());

	it('answers 401 to an unsigned, forged or stale call and starts no run; 400 to a signed body that is not a message', async () => {
		const trigger = await fixture.n8n.trigger('mailroomTrigger', { email: 'guarded@example.test' });
		await trigger.hook('create');
		const whsec = await webhookSecret(fixture.server, fixture.account.key);
		const body = JSON.stringify({
			_id: 'Forged0000000001',
			subject: 'Pay this invoice',
			from: [{ address: 'ceo@example.test', name: '' }],
		});

		expect(await postJson(trigger.url, body)).toEqual({
			status: 401,
			body: { error: 'Unauthorized', message: 'The request has no webhook signature' },
		});
		const forged = signed(`whsec_${Buffer.from('not the account secret, 32 bytes').toString('base64')}`, body);
		expect(await postJson(trigger.url, body, forged)).toEqual({
			status: 401,
			body: { error: 'Unauthorized', message: 'The webhook signature does not match' },
		});
		// The right secret over another body.
		expect(await postJson(trigger.url, body, signed(whsec, body.replace('Pay', 'Paid')))).toMatchObject({ status: 401 });
		expect(await postJson(trigger.url, body, { ...signed(whsec, body), 'webhook-signature': 'v1,???' })).toMatchObject({ status: 401 });
		const stale = signed(whsec, body, new Date(Date.now() - 6 * 60_000));
		expect(await postJson(trigger.url, body, stale)).toEqual({
			status: 401,
			body: { error: 'Unauthorized', message: 'The webhook timestamp is too far from the current time' },
		});
		expect(await postJson(trigger.url, body, signed(whsec, body, new Date(Date.now() + 6 * 60_000)))).toMatchObject({ status: 401 });
		expect(trigger.runs).toEqual([]);

		// Correctly signed, within the tolerance: accepted.
		expect(await postJson(trigger.url, body, signed(whsec, body, new Date(Date.now() - 4 * 60_000)))).toMatchObject({ status: 200 });
		expect(trigger.runs).toHaveLength(1);
		const notMessage = JSON.stringify({ hello: 'world' });
		expect(await postJson(trigger.url, notMessage, signed(whsec, notMessage))).toEqual({
			status: 400,
			body: { error: 'Bad Request', message: 'Expected a Mailroom message as JSON' },
		});
		expect(trigger.runs).toHaveLength(1);
		await trigger.hook('delete');
	});
});
