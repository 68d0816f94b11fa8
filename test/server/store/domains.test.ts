import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DomainError } from 'mailroom-server/dist/store/store';
import { ENGINES, openTestStore, type TestStore } from '../../helpers/stores';

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
