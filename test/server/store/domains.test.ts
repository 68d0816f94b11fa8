import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DomainError } from 'mailroom-server/dist/store/store';
import { ENGINES, openTestStore, storePerTest, type TestStore } from '../../helpers/stores';

describe.each(ENGINES)('DomainStore: owned domains (%s)', (engine) => {
	const current = storePerTest(engine);
	const twoAccounts = async () => ({
		alice: (await current().accounts.create('alice')).id,
		bob: (await current().accounts.create('bob')).id,
	});

	it('claims a domain once, refusing it to others and while others hold addresses in it, and lists owned domains by name', async () => {
		const { domains, addresses } = current();
		const { alice, bob } = await twoAccounts();
		const claimed = await domains.claim('mine.test', alice);
		expect(claimed).toEqual({ _id: 'mine.test', owner: alice, created: expect.any(String), catchAll: null });
		expect(await domains.claim('mine.test', alice)).toEqual(claimed);
		await expect(domains.claim('mine.test', bob)).rejects.toThrow(new DomainError('mine.test is owned by another account'));
		await addresses.reserve('held@theirs.test', bob);
		await expect(domains.claim('theirs.test', alice)).rejects.toThrow(
			new DomainError('held@theirs.test is reserved by another account, so theirs.test cannot be claimed'),
		);
		expect(await domains.isOwned('mine.test')).toBe(true);
		expect(await domains.isOwned('theirs.test')).toBe(false);
		await domains.claim('also.test', alice);
		await domains.claim('bobs.test', bob);
		expect((await domains.list(alice)).map((domain) => domain._id)).toEqual(['also.test', 'mine.test']);
		expect((await domains.list()).map((domain) => domain._id)).toEqual(['also.test', 'bobs.test', 'mine.test']);
	});

	it('gives a domain up with its catch-all, its reserved addresses staying reserved', async () => {
		const { domains, addresses } = current();
		const { alice } = await twoAccounts();
		await domains.claim('leaving.test', alice);
		await addresses.setCatchAll('leaving.test', 'all@leaving.test', alice);
		const removed = await domains.remove('leaving.test');
		expect(removed).toMatchObject({ _id: 'leaving.test', catchAll: 'all@leaving.test' });
		expect(await domains.get('leaving.test')).toBeUndefined();
		expect(await addresses.get('all@leaving.test')).toMatchObject({ owner: alice, catchAll: null });
		expect(await domains.remove('leaving.test')).toBeUndefined();
	});
});

describe.each(ENGINES)('claiming domains: one tree, one owner (%s)', (engine) => {
	let store: TestStore;
	let alice: string;
	let bob: string;
	beforeAll(async () => {
		store = await openTestStore(engine);
		alice = (await store.accounts.create('alice')).id;
		bob = (await store.accounts.create('bob')).id;
	});
	afterAll(() => store.close());

	it("refuses another account a subdomain of a domain someone owns, at any depth, and gives the parent's owner hers", async () => {
		await store.domains.claim('alicecorp.test', alice);
		for (const subdomain of ['sub.alicecorp.test', 'deep.mail.alicecorp.test']) {
			const claim = store.domains.claim(subdomain, bob);
			await expect(claim).rejects.toThrow(DomainError);
			await expect(store.domains.claim(subdomain, bob)).rejects.toThrow(
				`${subdomain} is a subdomain of alicecorp.test, which another account owns; only its owner may claim its subdomains`,
			);
		}
		expect(await store.domains.claim('sub.alicecorp.test', alice)).toMatchObject({ _id: 'sub.alicecorp.test', owner: alice });
		expect(await store.domains.claim('deep.mail.alicecorp.test', alice)).toMatchObject({ owner: alice });
		// A domain that only ends like it is another tree.
		expect(await store.domains.claim('notalicecorp.test', bob)).toMatchObject({ owner: bob });
	});

	it('refuses a domain above subdomains another account owns', async () => {
		await store.domains.claim('team.bobsite.test', bob);
		await expect(store.domains.claim('bobsite.test', alice)).rejects.toThrow(
			'team.bobsite.test is owned by another account, so bobsite.test, a domain above it, cannot be claimed',
		);
		expect(await store.domains.get('bobsite.test')).toBeUndefined();
		// Its owner may take the whole tree.
		expect(await store.domains.claim('bobsite.test', bob)).toMatchObject({ owner: bob });
	});

	it('lets anyone claim a subdomain again once its parent is given up', async () => {
		await store.domains.claim('leaving.test', alice);
		await expect(store.domains.claim('sub.leaving.test', bob)).rejects.toThrow(DomainError);
		await store.domains.remove('leaving.test');
		expect(await store.domains.claim('sub.leaving.test', bob)).toMatchObject({ owner: bob });
	});

	it.each(['test', 'com', 'co.uk', 'github.io'])(
		'refuses the public suffix %s: nobody owns what others register under it',
		async (suffix) => {
			await expect(store.domains.claim(suffix, alice)).rejects.toThrow(`${suffix} is a public suffix`);
		},
	);

	it('lets only one of two racing claims in one tree through (a domain and its subdomain, by two accounts)', async () => {
		const results = await Promise.allSettled([store.domains.claim('race.test', alice), store.domains.claim('sub.race.test', bob)]);
		expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
		expect((results.find((result) => result.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(DomainError);
	});
});
