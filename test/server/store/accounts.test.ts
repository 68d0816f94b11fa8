import { describe, expect, it } from '@jest/globals';
import { AccountError } from 'mailroom-server/dist/store/store';
import { nextMillisecond } from '../../helpers/messages';
import { ENGINES, storePerBlock } from '../../helpers/stores';

describe.each(ENGINES)('AccountStore: accounts and their API keys (%s)', (engine) => {
	const current = storePerBlock(engine);

	it('creates accounts, finds them by id or name, and lists them in order of creation', async () => {
		const { accounts } = current();
		expect(await accounts.isEmpty()).toBe(true);
		const admin = await accounts.create('root', { admin: true, credits: 3 });
		await nextMillisecond(); // the order of creation is that of the creation times (of a millisecond)
		const other = await accounts.create('other');
		expect(admin).toMatchObject({ name: 'root', isAdmin: true, credits: 3 });
		expect(other).toMatchObject({ name: 'other', isAdmin: false, credits: 0 });
		expect(await accounts.isEmpty()).toBe(false);
		expect(await accounts.find(admin.id)).toEqual(admin);
		expect(await accounts.find('other')).toEqual(other);
		expect(await accounts.find('nobody')).toBeUndefined();
		expect((await accounts.list()).map((account) => account.name)).toEqual(['root', 'other']);
	});

	it('refuses bad names, names taken, unknown accounts and credits that are not positive whole numbers', async () => {
		const { accounts } = current();
		await expect(accounts.create('-dash')).rejects.toThrow(
			new AccountError('account name "-dash" must be 1-64 letters, digits, ".", "_", "@" or "-"'),
		);
		await accounts.create('taken');
		await expect(accounts.create('taken')).rejects.toThrow(new AccountError('an account named "taken" already exists'));
		await expect(accounts.require('ghost')).rejects.toThrow(new AccountError('no account "ghost" (see: mailroom accounts list)'));
		const { id } = await accounts.require('taken');
		await expect(accounts.addCredits(id, 1.5)).rejects.toThrow(new AccountError('credits must be a positive whole number, got 1.5'));
		expect((await accounts.addCredits(id, 7)).credits).toBe(7);
		expect((await accounts.addCredits(id, 2)).credits).toBe(9);
	});

	it('stores keys as hashes: a key finds its account until it is revoked', async () => {
		const { accounts } = current();
		const account = await accounts.create('keyed');
		const { key, info } = await accounts.createKey(account.id, 'laptop');
		await nextMillisecond();
		const { info: second } = await accounts.createKey(account.id);
		expect(info).toMatchObject({ accountId: account.id, label: 'laptop', revoked: null });
		expect(await accounts.forKey(key)).toEqual(account);
		expect(await accounts.keyInfo(key)).toEqual(info);
		expect(await accounts.listKeys(account.id)).toEqual([info, { ...second, label: '' }]);

		const revoked = await accounts.revokeKey(info.id);
		expect(revoked.revoked).toEqual(expect.any(String));
		expect(await accounts.forKey(key)).toBeUndefined();
		expect((await accounts.keyInfo(key))?.revoked).toBe(revoked.revoked);
		await expect(accounts.revokeKey(info.id)).rejects.toThrow(new AccountError(`API key "${info.id}" was already revoked`));
		await expect(accounts.revokeKey('nope')).rejects.toThrow(
			new AccountError('no API key with id "nope" (see: mailroom keys list <account>)'),
		);
		// The status the API answers each with (a revocation raced by another gets here past the route's own checks).
		await expect(accounts.revokeKey(info.id)).rejects.toMatchObject({ status: 409 });
		await expect(accounts.revokeKey('nope')).rejects.toMatchObject({ status: 404 });
		await expect(accounts.create('keyed')).rejects.toMatchObject({ status: 409 });
		await expect(accounts.create('-dash')).rejects.toMatchObject({ status: 400 });
		expect(await accounts.keyInfo('mr_unknown')).toBeUndefined();
	});
});
