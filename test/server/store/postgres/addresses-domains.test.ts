import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DomainError, type Store } from 'mailroom-server/dist/store/store';
import { openPostgresStore } from 'mailroom-server/dist/store/postgres/open';
import { startPostgres, type TestPostgres } from '../../../helpers/postgres';
import { freshStore } from './fixtures';

describe('PostgreSQL store: private addresses, domains, catch-all and the settings acting on an inbox', () => {
	let postgres: TestPostgres;
	let store: Store;
	let url: string;
	let alice: string;
	let bob: string;
	beforeAll(async () => {
		postgres = await startPostgres();
		({ store, url } = await freshStore(postgres));
		alice = (await store.accounts.create('alice')).id;
		bob = (await store.accounts.create('bob')).id;
	});
	afterAll(async () => {
		await store.close();
		await postgres.stop();
	});

	it('reserves a free address with its settings, and leaves one already held as it is', async () => {
		const reserved = await store.addresses.reserve('me@a.test', alice, { webhook: 'https://hook.test/a', enablews: true });
		expect(reserved).toMatchObject({ _id: 'me@a.test', owner: alice, webhook: 'https://hook.test/a', enablews: true, catchAll: null });
		expect(await store.addresses.reserve('me@a.test', bob, { webhook: 'https://hook.test/b' })).toEqual(reserved);
		expect(await store.addresses.get('me@a.test')).toEqual(reserved);
		const updated = await store.addresses.update('me@a.test', { webhookSlackToFrom: false, info: 'note', forward: null });
		expect(updated).toMatchObject({ webhookSlackToFrom: false, info: 'note', webhook: 'https://hook.test/a' });
		expect(await store.addresses.reserveAll(['z@a.test', 'y@a.test'], alice)).toMatchObject([{ _id: 'z@a.test' }, { _id: 'y@a.test' }]);
		expect((await store.addresses.listByOwner(alice)).map((record) => record._id)).toEqual(['me@a.test', 'y@a.test', 'z@a.test']);
	});

	it('knows whose mail an inbox is: its address owner, else its domain owner', async () => {
		await store.addresses.reserve('own@shared.test', bob);
		await store.domains.claim('whole.test', alice);
		expect(await store.addresses.ownerOfInbox('own@shared.test', 'shared.test')).toBe(bob);
		expect(await store.addresses.ownerOfInbox('any@whole.test', 'whole.test')).toBe(alice);
		expect(await store.addresses.ownerOfInbox('nobody@public.test', 'public.test')).toBeNull();
	});

	it('releases an address with its webhook subscriptions', async () => {
		await store.addresses.reserve('gone@a.test', alice);
		const first = await store.webhookSubscriptions.create('gone@a.test', 'https://hook.test/1', { subject: 'x', from: undefined });
		const second = await store.webhookSubscriptions.create('gone@a.test', 'https://hook.test/2', {});
		expect(first.filter).toEqual({ subject: 'x' });
		expect(second.filter).toBeNull();
		expect(await store.webhookSubscriptions.list('gone@a.test')).toEqual([first, second]);
		expect(await store.webhookSubscriptions.count('gone@a.test')).toBe(2);
		expect(await store.webhookSubscriptions.remove('gone@a.test', second._id)).toEqual(second);
		expect(await store.webhookSubscriptions.remove('gone@a.test', second._id)).toBeUndefined();
		expect(await store.webhookSubscriptions.remove('other@a.test', first._id)).toBeUndefined();
		await store.addresses.release('gone@a.test');
		expect(await store.addresses.get('gone@a.test')).toBeUndefined();
		expect(await store.webhookSubscriptions.count('gone@a.test')).toBe(0);
	});

	it('keeps one catch-all address per domain, reserving it if need be', async () => {
		await store.domains.claim('catch.test', alice);
		const first = await store.addresses.setCatchAll('catch.test', 'all@catch.test', alice);
		expect(first).toMatchObject({ _id: 'all@catch.test', owner: alice, catchAll: 'catch.test' });
		expect((await store.domains.get('catch.test'))?.catchAll).toBe('all@catch.test');
		await store.addresses.setCatchAll('catch.test', 'other@catch.test', alice);
		expect((await store.addresses.catchAllOf('catch.test'))?._id).toBe('other@catch.test');
		expect((await store.addresses.get('all@catch.test'))?.catchAll).toBeNull();
		expect(await store.addresses.setCatchAll('catch.test', null, alice)).toBeUndefined();
		expect(await store.addresses.catchAllOf('catch.test')).toBeUndefined();
	});

	it('claims a domain once, refusing it to others and while others hold addresses in it', async () => {
		const claimed = await store.domains.claim('mine.test', alice);
		expect(claimed).toEqual({ _id: 'mine.test', owner: alice, created: expect.any(String), catchAll: null });
		expect(await store.domains.claim('mine.test', alice)).toEqual(claimed);
		await expect(store.domains.claim('mine.test', bob)).rejects.toThrow(new DomainError('mine.test is owned by another account'));
		await store.addresses.reserve('held@theirs.test', bob);
		await expect(store.domains.claim('theirs.test', alice)).rejects.toThrow(
			new DomainError('held@theirs.test is reserved by another account, so theirs.test cannot be claimed'),
		);
		expect(await store.domains.isOwned('mine.test')).toBe(true);
		expect(await store.domains.isOwned('theirs.test')).toBe(false);
		expect((await store.domains.list(alice)).map((domain) => domain._id)).toEqual(['catch.test', 'mine.test', 'whole.test']);
		expect((await store.domains.list()).map((domain) => domain._id)).toEqual(['catch.test', 'mine.test', 'whole.test']);
	});

	it('gives a domain up with its catch-all, its reserved addresses staying reserved', async () => {
		await store.domains.claim('leaving.test', alice);
		await store.addresses.setCatchAll('leaving.test', 'all@leaving.test', alice);
		const removed = await store.domains.remove('leaving.test');
		expect(removed).toMatchObject({ _id: 'leaving.test', catchAll: 'all@leaving.test' });
		expect(await store.domains.get('leaving.test')).toBeUndefined();
		expect(await store.addresses.get('all@leaving.test')).toMatchObject({ owner: alice, catchAll: null });
		expect(await store.domains.remove('leaving.test')).toBeUndefined();
	});

	it('lets one of two nodes claiming a domain at the same moment have it', async () => {
		const second = await openPostgresStore(url, { node: 'node-b', role: 'admin' });
		try {
			const outcomes = await Promise.allSettled([
				store.domains.claim('contested.test', alice),
				second.domains.claim('contested.test', bob),
			]);
			expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
			const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
			expect(refused.reason).toEqual(new DomainError('contested.test is owned by another account'));
		} finally {
			await second.close();
		}
	});

	it("applies an address's own settings, else its domain catch-all's, never another account's", async () => {
		await store.domains.claim('settings.test', alice);
		await store.addresses.setCatchAll('settings.test', 'catch@settings.test', alice);
		await store.addresses.update('catch@settings.test', { webhook: 'https://hook.test/catch', forward: 'f@x.test' });
		const inherited = await store.webhookSubscriptions.create('catch@settings.test', 'https://hook.test/sub');
		await store.addresses.reserve('own@settings.test', alice, { webhook: 'https://hook.test/own' });
		const own = await store.webhookSubscriptions.create('own@settings.test', 'https://hook.test/own-sub');

		const plain = await store.inboxSettings.of('plain@settings.test', 'settings.test');
		expect(plain.get('webhook')).toMatchObject({ value: 'https://hook.test/catch', from: { email: 'catch@settings.test', owner: alice } });
		expect(plain.get('forward')?.value).toBe('f@x.test');
		expect(plain.subscriptions()?.value).toEqual([inherited]);

		const reserved = await store.inboxSettings.of('own@settings.test', 'settings.test');
		expect(reserved.get('webhook')?.value).toBe('https://hook.test/own');
		expect(reserved.get('forward')?.value).toBe('f@x.test');
		expect(reserved.subscriptions()).toEqual({ value: [own], from: expect.objectContaining({ email: 'own@settings.test' }) });

		// An address another account holds in the domain (the API refuses it; the store must not hand it alice's settings).
		await store.addresses.reserve('theirs@settings.test', bob);
		const others = await store.inboxSettings.of('theirs@settings.test', 'settings.test');
		expect(others.get('webhook')).toBeUndefined();
		expect(others.subscriptions()).toBeUndefined();

		const publicInbox = await store.inboxSettings.of('x@nowhere.test', 'nowhere.test');
		expect(publicInbox.get('webhook')).toBeUndefined();
		expect(publicInbox.subscriptions()).toBeUndefined();
	});

	it('routes mail to an encrypted address to the inbox it stands for, in that inbox domain only', async () => {
		const token = await store.encryptedInboxes.tokenFor('secret@enc.test');
		expect(token).toMatch(/^inbox-[0-9a-f]{40}$/);
		expect(await store.encryptedInboxes.resolve(`${token}@enc.test`, 'enc.test')).toBeUndefined();
		expect(await store.encryptedInboxes.remember('secret@enc.test')).toBe(true);
		expect(await store.encryptedInboxes.remember('secret@enc.test')).toBe(false);
		expect(await store.encryptedInboxes.resolve(`${token}@enc.test`, 'enc.test')).toEqual({
			inbox: 'secret@enc.test',
			originalInbox: `${token}@enc.test`,
			domain: 'enc.test',
		});
		expect(await store.encryptedInboxes.resolve(`${token}@other.test`, 'other.test')).toBeUndefined();
		expect(await store.encryptedInboxes.resolve('plain@enc.test', 'enc.test')).toBeUndefined();
	});
});
