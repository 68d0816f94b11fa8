import { describe, expect, it } from '@jest/globals';
import { nextMillisecond } from '../../helpers/messages';
import { ENGINES, storePerTest } from '../../helpers/stores';

describe.each(ENGINES)('WebhookSubscriptionStore: the webhook subscriptions of an address (%s)', (engine) => {
	const current = storePerTest(engine);

	it('lists an address subscriptions oldest first, removes them one by one, and all of them with the address', async () => {
		const { accounts, addresses, webhookSubscriptions } = current();
		await addresses.reserve('gone@a.test', (await accounts.create('alice')).id);
		const first = await webhookSubscriptions.create('gone@a.test', 'https://hook.test/1', { subject: 'x', from: undefined });
		await nextMillisecond(); // oldest first: by the time of creation (of a millisecond)
		const second = await webhookSubscriptions.create('gone@a.test', 'https://hook.test/2', {});
		expect(first.filter).toEqual({ subject: 'x' });
		expect(second.filter).toBeNull();
		expect(await webhookSubscriptions.list('gone@a.test')).toEqual([first, second]);
		expect(await webhookSubscriptions.count('gone@a.test')).toBe(2);
		expect(await webhookSubscriptions.remove('gone@a.test', second._id)).toEqual(second);
		expect(await webhookSubscriptions.remove('gone@a.test', second._id)).toBeUndefined();
		expect(await webhookSubscriptions.remove('other@a.test', first._id)).toBeUndefined();
		await addresses.release('gone@a.test');
		expect(await addresses.get('gone@a.test')).toBeUndefined();
		expect(await webhookSubscriptions.count('gone@a.test')).toBe(0);
	});
});
