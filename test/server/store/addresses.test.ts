import { beforeAll, describe, expect, it } from '@jest/globals';
import { ENGINES, storePerBlock } from '../../helpers/stores';

describe.each(ENGINES)('AddressStore: private addresses and catch-all addresses (%s)', (engine) => {
	const current = storePerBlock(engine);
	let alice: string;
	let bob: string;
	beforeAll(async () => {
		alice = (await current().accounts.create('alice')).id;
		bob = (await current().accounts.create('bob')).id;
	});

	it('reserves a free address with its settings, and leaves one already held as it is', async () => {
		const { addresses } = current();
		const reserved = await addresses.reserve('me@a.test', alice, { webhook: 'https://hook.test/a', enablews: true });
		expect(reserved).toMatchObject({ _id: 'me@a.test', owner: alice, webhook: 'https://hook.test/a', enablews: true, catchAll: null });
		expect(await addresses.reserve('me@a.test', bob, { webhook: 'https://hook.test/b' })).toEqual(reserved);
		expect(await addresses.get('me@a.test')).toEqual(reserved);
		const updated = await addresses.update('me@a.test', { webhookSlackToFrom: false, info: 'note', forward: null });
		expect(updated).toMatchObject({ webhookSlackToFrom: false, info: 'note', webhook: 'https://hook.test/a' });
		expect(await addresses.reserveAll(['z@a.test', 'y@a.test'], alice)).toMatchObject([{ _id: 'z@a.test' }, { _id: 'y@a.test' }]);
		expect((await addresses.listByOwner(alice)).map((record) => record._id)).toEqual(['me@a.test', 'y@a.test', 'z@a.test']);
	});

	it('knows whose mail an inbox is: its address owner, else its domain owner', async () => {
		const { addresses, domains } = current();
		await addresses.reserve('own@shared.test', bob);
		await domains.claim('whole.test', alice);
		expect(await addresses.ownerOfInbox('own@shared.test', 'shared.test')).toBe(bob);
		expect(await addresses.ownerOfInbox('any@whole.test', 'whole.test')).toBe(alice);
		expect(await addresses.ownerOfInbox('nobody@public.test', 'public.test')).toBeNull();
	});

	it('keeps one catch-all address per domain, reserving it if need be', async () => {
		const { addresses, domains } = current();
		await domains.claim('catch.test', alice);
		const first = await addresses.setCatchAll('catch.test', 'all@catch.test', alice);
		expect(first).toMatchObject({ _id: 'all@catch.test', owner: alice, catchAll: 'catch.test' });
		expect((await domains.get('catch.test'))?.catchAll).toBe('all@catch.test');
		await addresses.setCatchAll('catch.test', 'other@catch.test', alice);
		expect((await addresses.catchAllOf('catch.test'))?._id).toBe('other@catch.test');
		expect((await addresses.get('all@catch.test'))?.catchAll).toBeNull();
		expect(await addresses.setCatchAll('catch.test', null, alice)).toBeUndefined();
		expect(await addresses.catchAllOf('catch.test')).toBeUndefined();
	});
});
