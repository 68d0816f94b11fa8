import { describe, expect, it } from '@jest/globals';
import { ENGINES, insert, mailTo, storePerTest } from '../../helpers/stores';

describe.each(ENGINES)('AccountStatsReader: what an account holds (%s)', (engine) => {
	const current = storePerTest(engine);

	it('counts its addresses, domains, private mail and its size, and what it starred', async () => {
		const store = current();
		const { id } = await store.accounts.create('holder');
		await store.addresses.reserve('b@held.test', id);
		await store.addresses.reserve('a@elsewhere.test', id);
		await store.domains.claim('owned.test', id);
		const [mine] = await insert(store, mailTo(['a@elsewhere.test']));
		await insert(store, mailTo(['anyone@owned.test', 'public@other.test']));
		const [starredPublic] = await insert(store, mailTo(['public@other.test']));
		await store.messageState.toggleStar(starredPublic.inbox, starredPublic._id, id);
		await store.messageState.toggleStar(mine.inbox, mine._id, id);
		expect(await store.accountStats.read(id)).toEqual({
			addresses: ['a@elsewhere.test', 'b@held.test'],
			domains: ['owned.test'],
			storedMessages: 2,
			starredMessages: 2,
			inboxBytes: 6,
		});
	});
});
