import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { StoreOpenError, StoreUnavailableError, type Store, type StoredAnnouncement } from 'mailroom-server/dist/store/store';
import { openPostgresStore } from 'mailroom-server/dist/store/postgres/open';
import { freePort } from '../../../helpers/ports';
import { waitFor } from '../../../helpers/webhook-receiver';
import { TEST_PASSWORD, startOwnPostgres, urlFor, type OwnPostgres } from '../../../helpers/postgres';
import { mailTo } from './fixtures';

/** How the store opens, or why it does not: the message a person reads. */
async function openError(url: string): Promise<StoreOpenError> {
	const error = await openPostgresStore(url, { node: 'node-a', role: 'admin' }).then(
		(store) => store.close().then(() => undefined),
		(err: unknown) => err,
	);
	expect(error).toBeInstanceOf(StoreOpenError);
	return error as StoreOpenError;
}

describe('PostgreSQL store: a database that refuses, or goes away', () => {
	let postgres: OwnPostgres;
	let url: string;
	beforeAll(async () => {
		// A server of this file's own: the tests stop it.
		postgres = await startOwnPostgres();
		url = await postgres.newDatabase();
	});
	afterAll(() => postgres.stop());

	it('refuses to open, saying why and where, never with the password', async () => {
		const wrong = await openError(urlFor(url, { password: 'not-the-password' }));
		expect(wrong.message).toBe(`PostgreSQL at 127.0.0.1:${postgres.port} refused the password of user "postgres"`);
		const missing = await openError(urlFor(url, { database: 'no_such_db' }));
		expect(missing.message).toBe(
			`PostgreSQL at 127.0.0.1:${postgres.port} has no database "no_such_db": create it first (createdb no_such_db)`,
		);
		const port = await freePort();
		const unreachable = await openError(urlFor(url, { port }));
		expect(unreachable.message).toMatch(new RegExp(`^cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`));
		const invalid = await openError('postgres://[not a host/db');
		expect(invalid.message).toMatch(/the PostgreSQL URL is not valid/);
		for (const error of [wrong, missing, unreachable, invalid]) expect(error.message).not.toContain(TEST_PASSWORD);
	});

	it('answers StoreUnavailableError while the server is down, mid-transaction too, and works again once it is back', async () => {
		const store: Store = await openPostgresStore(url, { node: 'node-a', role: 'server' });
		const other: Store = await openPostgresStore(url, { node: 'node-b', role: 'ingest' });
		const heard: StoredAnnouncement[] = [];
		store.onAnnouncement((announcement) => heard.push(announcement));
		try {
			await store.ping();
			let halted: () => void = () => {};
			const halting = new Promise<void>((resolve) => (halted = resolve));
			const cut = store.transaction(async (parts) => {
				await parts.messages.insert(mailTo(['cut@x.test']));
				await halting;
				return parts.messages.insert(mailTo(['cut@x.test']));
			});
			await waitFor(async () => (await other.messages.count('cut@x.test')) === 0 && heard.length === 0, 'the transaction to begin');
			await postgres.halt();
			halted();
			await expect(cut).rejects.toThrow(StoreUnavailableError);
			await expect(store.ping()).rejects.toThrow(StoreUnavailableError);
			await expect(store.accounts.list()).rejects.toThrow(
				new RegExp(`^PostgreSQL at 127\\.0\\.0\\.1:${postgres.port}/\\w+ is unavailable`),
			);
			await expect(store.transaction((parts) => parts.messages.insert(mailTo(['down@x.test'])))).rejects.toThrow(StoreUnavailableError);
			await expect(store.exclusive('sweep', () => Promise.resolve('ran'))).rejects.toThrow(StoreUnavailableError);

			await postgres.resume();
			await waitFor(
				() =>
					store.ping().then(
						() => true,
						() => false,
					),
				'the store to reach the server again',
			);
			expect(await store.messages.count('cut@x.test')).toBe(0);
			await store.transaction((parts) => parts.messages.insert(mailTo(['back@x.test'])));
			expect(await other.messages.count('back@x.test')).toBe(1);
			await waitFor(async () => {
				await other.transaction((parts) => parts.announce({ messages: [], webhooks: true, forwards: false }));
				return heard.length > 0;
			}, 'the listener to hear again');
		} finally {
			await other.close();
			await store.close();
		}
	}, 60_000);
});
