import { describe, expect, it } from '@jest/globals';
import { ENGINES, storePerTest } from '../../helpers/stores';

describe.each(ENGINES)('InboxSettingsStore: the settings that act on an inbox (%s)', (engine) => {
	const current = storePerTest(engine);

	it("applies an address's own settings, else its domain catch-all's, never another account's", async () => {
		const { accounts, addresses, domains, inboxSettings, webhookSubscriptions } = current();
		const alice = (await accounts.create('alice')).id;
		const bob = (await accounts.create('bob')).id;
		await domains.claim('settings.test', alice);
		await addresses.setCatchAll('settings.test', 'catch@settings.test', alice);
		await addresses.update('catch@settings.test', { webhook: 'https://hook.test/catch', forward: 'f@x.test' });
		const inherited = await webhookSubscriptions.create('catch@settings.test', 'https://hook.test/sub');
		await addresses.reserve('own@settings.test', alice, { webhook: 'https://hook.test/own' });
		const own = await webhookSubscriptions.create('own@settings.test', 'https://hook.test/own-sub');

		const plain = await inboxSettings.of('plain@settings.test', 'settings.test');
		expect(plain.get('webhook')).toMatchObject({ value: 'https://hook.test/catch', from: { email: 'catch@settings.test', owner: alice } });
		expect(plain.get('forward')?.value).toBe('f@x.test');
		expect(plain.subscriptions()?.value).toEqual([inherited]);

		const reserved = await inboxSettings.of('own@settings.test', 'settings.test');
		expect(reserved.get('webhook')?.value).toBe('https://hook.test/own');
		expect(reserved.get('forward')?.value).toBe('f@x.test');
		expect(reserved.subscriptions()).toEqual({ value: [own], from: expect.objectContaining({ email: 'own@settings.test' }) });

		// An address another account holds in the domain (the API refuses it; the store must not hand it alice's settings).
		await addresses.reserve('theirs@settings.test', bob);
		const others = await inboxSettings.of('theirs@settings.test', 'settings.test');
		expect(others.get('webhook')).toBeUndefined();
		expect(others.subscriptions()).toBeUndefined();

		const publicInbox = await inboxSettings.of('x@nowhere.test', 'nowhere.test');
		expect(publicInbox.get('webhook')).toBeUndefined();
		expect(publicInbox.subscriptions()).toBeUndefined();
	});
});
