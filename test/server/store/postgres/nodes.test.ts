import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Store, StoredAnnouncement } from 'mailroom-server/dist/store/store';
import { openPostgresStore, type PostgresStoreOptions } from 'mailroom-server/dist/store/postgres/open';
import { waitFor } from '../../../helpers/webhook-receiver';
import { startPostgres, type TestPostgres } from '../../../helpers/postgres';
import { Sql, mailTo } from './fixtures';

/** What a store hears from the other nodes. */
function heardBy(store: Store): StoredAnnouncement[] {
	const heard: StoredAnnouncement[] = [];
	store.onAnnouncement((announcement) => heard.push(announcement));
	return heard;
}

/** Lets notifications in flight arrive: a round trip on each listener's server after the commit. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

describe('PostgreSQL store: several nodes on one database', () => {
	let postgres: TestPostgres;
	let url: string;
	const stores: Store[] = [];
	const open = async (options: Partial<PostgresStoreOptions>) => {
		const store = await openPostgresStore(url, { node: 'node-a', role: 'server', ...options });
		stores.push(store);
		return store;
	};
	beforeAll(async () => {
		postgres = await startPostgres();
		url = await postgres.newDatabase();
	});
	afterAll(async () => {
		await Promise.all(stores.map((store) => store.close()));
		await postgres.stop();
	});

	it('tells the other nodes of the mail a transaction stored once it commits, and not the node itself', async () => {
		const ingestA = await open({ node: 'node-a', role: 'ingest' });
		const heardByA = heardBy(await open({ node: 'node-a' }));
		const heardByB = heardBy(await open({ node: 'node-b' }));
		const [record] = await ingestA.transaction(async (parts) => {
			const records = await parts.messages.insert(mailTo(['heard@x.test']));
			await parts.announce({
				messages: records.map(({ _id, inbox }) => ({ id: _id, inbox })),
				webhooks: true,
				forwards: false,
			});
			return records;
		});
		await waitFor(() => heardByB.length > 0, 'node-b to hear of the mail');
		expect(heardByB).toEqual([{ node: 'node-a', messages: [{ id: record._id, inbox: 'heard@x.test' }], webhooks: true, forwards: false }]);
		expect((await ingestA.messages.byIds([record._id]))[0]).toEqual(record);
		await settle();
		expect(heardByA).toEqual([]);
	});

	it('tells nothing of a transaction that is rolled back', async () => {
		const writer = await open({ node: 'node-c', role: 'ingest' });
		const heard = heardBy(await open({ node: 'node-d' }));
		await expect(
			writer.transaction(async (parts) => {
				await parts.announce({ messages: [{ id: 'never', inbox: 'never@x.test' }], webhooks: false, forwards: false });
				throw new Error('rolled back');
			}),
		).rejects.toThrow('rolled back');
		await settle();
		expect(heard).toEqual([]);
	});

	it('splits an announcement too long for one notification, every message heard', async () => {
		const writer = await open({ node: 'node-e', role: 'ingest' });
		const heard = heardBy(await open({ node: 'node-f' }));
		const messages = Array.from({ length: 600 }, (_, i) => ({ id: `id-${i}`, inbox: `a-rather-long-inbox-name-${i}@example.test` }));
		await writer.transaction((parts) => parts.announce({ messages, webhooks: false, forwards: true }));
		await waitFor(() => heard.flatMap((announcement) => announcement.messages).length === messages.length, 'every message heard');
		expect(heard.length).toBeGreaterThan(1);
		expect(heard.flatMap((announcement) => announcement.messages)).toEqual(messages);
		for (const announcement of heard) expect(announcement).toMatchObject({ node: 'node-e', webhooks: false, forwards: true });
	});

	it('hears again once its listening connection, cut, is made anew', async () => {
		const writer = await open({ node: 'node-g', role: 'ingest' });
		const heard = heardBy(await open({ node: 'node-h' }));
		const sql = await Sql.on(url);
		try {
			await sql.rows(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
				WHERE application_name = 'mailroom announcements' AND datname = current_database()`);
			await waitFor(async () => {
				await writer.transaction((parts) => parts.announce({ messages: [], webhooks: true, forwards: false }));
				await settle();
				return heard.length > 0;
			}, 'the listener to reconnect');
		} finally {
			await sql.close();
		}
	});

	it('runs an exclusive task on one node at a time', async () => {
		const [first, second] = [await open({ node: 'node-i', role: 'admin' }), await open({ node: 'node-j', role: 'admin' })];
		let started = false;
		let finish = () => {};
		const running = first.exclusive('sweep', () => {
			started = true;
			return new Promise<string>((resolve) => (finish = () => resolve('swept')));
		});
		await waitFor(() => started, 'the first node to start the task');
		expect(await second.exclusive('sweep', () => Promise.resolve('ran'))).toBeUndefined();
		expect(await second.exclusive('another task', () => Promise.resolve('ran'))).toBe('ran');
		finish();
		expect(await running).toBe('swept');
		expect(await second.exclusive('sweep', () => Promise.resolve('ran'))).toBe('ran');
		await expect(first.exclusive('sweep', () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
		expect(await second.exclusive('sweep', () => Promise.resolve('after a failure'))).toBe('after a failure');
	});
});
