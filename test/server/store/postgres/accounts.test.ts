import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AccountError, ROTATION_OVERLAP_MS, type Store } from 'mailroom-server/dist/store/store';
import { openPostgresStore } from 'mailroom-server/dist/store/postgres/open';
import { startPostgres, type TestPostgres } from '../../../helpers/postgres';
import { freshStore, mailTo } from './fixtures';

describe('PostgreSQL store: accounts, keys, secrets and what an account holds', () => {
	let postgres: TestPostgres;
	let store: Store;
	let url: string;
	beforeAll(async () => {
		postgres = await startPostgres();
		({ store, url } = await freshStore(postgres));
	});
	afterAll(async () => {
		await store.close();
		await postgres.stop();
	});

	it('creates accounts, finds them by id or name, and lists them in order of creation', async () => {
		expect(await store.accounts.isEmpty()).toBe(true);
		const admin = await store.accounts.create('root', { admin: true, credits: 3 });
		const other = await store.accounts.create('other');
		expect(admin).toMatchObject({ name: 'root', isAdmin: true, credits: 3 });
		expect(other).toMatchObject({ name: 'other', isAdmin: false, credits: 0 });
		expect(await store.accounts.isEmpty()).toBe(false);
		expect(await store.accounts.find(admin.id)).toEqual(admin);
		expect(await store.accounts.find('other')).toEqual(other);
		expect(await store.accounts.find('nobody')).toBeUndefined();
		expect((await store.accounts.list()).map((account) => account.name)).toEqual(['root', 'other']);
	});

	it('refuses bad names, names taken, unknown accounts and credits that are not positive whole numbers', async () => {
		await expect(store.accounts.create('-dash')).rejects.toThrow(
			new AccountError('account name "-dash" must be 1-64 letters, digits, ".", "_", "@" or "-"'),
		);
		await store.accounts.create('taken');
		await expect(store.accounts.create('taken')).rejects.toThrow(new AccountError('an account named "taken" already exists'));
		await expect(store.accounts.require('ghost')).rejects.toThrow(new AccountError('no account "ghost" (see: mailroom accounts list)'));
		const { id } = await store.accounts.require('taken');
		await expect(store.accounts.addCredits(id, 1.5)).rejects.toThrow(new AccountError('credits must be a positive whole number, got 1.5'));
		expect((await store.accounts.addCredits(id, 7)).credits).toBe(7);
		expect((await store.accounts.addCredits(id, 2)).credits).toBe(9);
	});

	it('gives one name to one account when two nodes create it at the same moment', async () => {
		const second = await openPostgresStore(url, { node: 'node-b', role: 'admin' });
		try {
			const outcomes = await Promise.allSettled([store.accounts.create('race'), second.accounts.create('race')]);
			expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
			expect((outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(AccountError);
		} finally {
			await second.close();
		}
	});

	it('stores keys as hashes: a key finds its account until it is revoked', async () => {
		const account = await store.accounts.create('keyed');
		const { key, info } = await store.accounts.createKey(account.id, 'laptop');
		const { info: second } = await store.accounts.createKey(account.id);
		expect(info).toMatchObject({ accountId: account.id, label: 'laptop', revoked: null });
		expect(await store.accounts.forKey(key)).toEqual(account);
		expect(await store.accounts.keyInfo(key)).toEqual(info);
		expect(await store.accounts.listKeys(account.id)).toEqual([info, { ...second, label: '' }]);

		const revoked = await store.accounts.revokeKey(info.id);
		expect(revoked.revoked).toEqual(expect.any(String));
		expect(await store.accounts.forKey(key)).toBeUndefined();
		expect((await store.accounts.keyInfo(key))?.revoked).toBe(revoked.revoked);
		await expect(store.accounts.revokeKey(info.id)).rejects.toThrow(new AccountError(`API key "${info.id}" was already revoked`));
		await expect(store.accounts.revokeKey('nope')).rejects.toThrow(
			new AccountError('no API key with id "nope" (see: mailroom keys list <account>)'),
		);
		expect(await store.accounts.keyInfo('mr_unknown')).toBeUndefined();
	});

	it('makes a webhook secret on first use, and keeps the previous one signing for a day after a rotation', async () => {
		const { id } = await store.accounts.create('signer');
		const secret = await store.webhookSecrets.get(id);
		expect(secret).toMatch(/^whsec_/);
		expect(await store.webhookSecrets.get(id)).toBe(secret);
		expect(await store.webhookSecrets.signing(id, Date.now())).toEqual({ secret, previous: null });
		const rotated = await store.webhookSecrets.rotate(id);
		expect(rotated).not.toBe(secret);
		expect(await store.webhookSecrets.signing(id, Date.now())).toEqual({ secret: rotated, previous: secret });
		expect(await store.webhookSecrets.signing(id, Date.now() + ROTATION_OVERLAP_MS + 1000)).toEqual({ secret: rotated, previous: null });
	});

	it('counts what an account holds: its addresses, domains, private mail and its size, and what it starred', async () => {
		const { id } = await store.accounts.create('holder');
		await store.addresses.reserve('b@held.test', id);
		await store.addresses.reserve('a@elsewhere.test', id);
		await store.domains.claim('owned.test', id);
		const [mine] = await store.messages.insert(mailTo(['a@elsewhere.test']));
		await store.messages.insert(mailTo(['anyone@owned.test', 'public@other.test']));
		await store.messageState.toggleStar('public@other.test', (await store.messages.insert(mailTo(['public@other.test'])))[0]._id, id);
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
