import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { newId } from 'mailroom-server/dist/store/ids';
import {
	AccountError,
	DomainError,
	type NewDelivery,
	type NewOutgoing,
	type Store,
	type StoredAnnouncement,
} from 'mailroom-server/dist/store/store';
import { openPostgresStore, type PostgresStoreOptions } from 'mailroom-server/dist/store/postgres/open';
import { StoringLockBusyError } from 'mailroom-server/dist/store/postgres/locks';
import { waitFor } from '../../../helpers/webhook-receiver';
import { startPostgres, type TestPostgres } from '../../../helpers/postgres';
import { attachment, insert, mailTo } from '../../../helpers/stores';
import { Sql } from './fixtures';

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

	it('splits the events of an announcement too, every one heard', async () => {
		const writer = await open({ node: 'node-e2', role: 'ingest' });
		const heard = heardBy(await open({ node: 'node-f2' }));
		const messages = Array.from({ length: 200 }, (_, i) => ({ id: `id-${i}`, inbox: `a-rather-long-inbox-name-${i}@example.test` }));
		const events = Array.from({ length: 800 }, (_, i) => `event-${i}`);
		await writer.transaction((parts) => parts.announce({ messages, webhooks: true, forwards: false, events }));
		await waitFor(() => heard.flatMap((announcement) => announcement.events ?? []).length === events.length, 'every event heard');
		expect(heard.length).toBeGreaterThan(2);
		expect(heard.flatMap((announcement) => announcement.messages)).toEqual(messages);
		expect(heard.flatMap((announcement) => announcement.events)).toEqual(events);
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
	/** What the store suite (test/server/store) states of one store holds for two nodes at once, each on its own pool. */
	describe('two nodes writing at the same moment', () => {
		let a: Store;
		let b: Store;
		let sql: Sql;
		beforeAll(async () => {
			a = await open({ node: 'node-a' });
			b = await open({ node: 'node-b' });
			sql = await Sql.on(url);
		});
		afterAll(() => sql.close());
		/** Each of `count` calls of `write` on node-a and node-b in turn, all at once. */
		const onBoth = <T>(count: number, write: (store: Store, i: number) => Promise<T>) =>
			Promise.all(Array.from({ length: count }, (_, i) => write(i % 2 ? a : b, i)));
		const leaseTo = (node: string) => ({ node, until: Date.now() + 60_000 });

		it('gives one name to one account', async () => {
			const outcomes = await Promise.allSettled([a.accounts.create('race'), b.accounts.create('race')]);
			expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
			expect((outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(AccountError);
		});

		it('lets one of two accounts claiming a domain have it', async () => {
			const [alice, bob] = [await a.accounts.create('alice'), await b.accounts.create('bob')];
			const outcomes = await Promise.allSettled([a.domains.claim('contested.test', alice.id), b.domains.claim('contested.test', bob.id)]);
			expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
			const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
			expect(refused.reason).toEqual(new DomainError('contested.test is owned by another account'));
		});

		it('keeps `received` strictly increasing in an inbox both store mail to', async () => {
			const at = new Date(Date.UTC(2026, 1, 1));
			await onBoth(20, (store) => insert(store, mailTo(['both@received.test'], {}, at)));
			const received = await sql.rows("SELECT DISTINCT received FROM messages WHERE inbox = 'both@received.test'");
			expect(received).toHaveLength(20);
		});

		it('never waits for an inbox while holding the inboxes of earlier mail of its transaction (no deadlock between group commits)', async () => {
			let release!: () => void;
			let holding!: () => void;
			const held = new Promise<void>((resolve) => (holding = resolve));
			// node-a stores mail to x and keeps its transaction open.
			const first = a.transaction(async (parts) => {
				await parts.messages.insert(mailTo(['x@lock-order.test']));
				holding();
				await new Promise<void>((resolve) => (release = resolve));
			});
			await held;
			// node-b's transaction holds y, then needs x: waiting could close a circle (node-a's next mail may need y).
			const second = b.transaction(async (parts) => {
				await parts.messages.insert(mailTo(['y@lock-order.test']));
				await parts.messages.insert(mailTo(['x@lock-order.test']));
			});
			await expect(second).rejects.toBeInstanceOf(StoringLockBusyError);
			release();
			await first;
			// Alone, mail waits for the inbox as before: both are stored.
			await Promise.all([insert(a, mailTo(['x@lock-order.test'])), insert(b, mailTo(['x@lock-order.test', 'y@lock-order.test']))]);
			expect(await sql.rows("SELECT inbox FROM messages WHERE inbox LIKE '%@lock-order.test' ORDER BY inbox")).toEqual([
				{ inbox: 'x@lock-order.test' },
				{ inbox: 'x@lock-order.test' },
				{ inbox: 'x@lock-order.test' },
				{ inbox: 'y@lock-order.test' },
			]);
		});

		it('keeps both labels two nodes add', async () => {
			const [{ _id }] = await insert(a, mailTo(['both@labels.test']));
			await onBoth(10, (store, i) => store.messageState.addLabel('both@labels.test', _id, `label-${i}`));
			expect((await a.messages.get('both@labels.test', _id))?.labels.sort()).toEqual(
				Array.from({ length: 10 }, (_, i) => `label-${i}`).sort(),
			);
		});

		it('leaves no content behind when the last records of a message are deleted by both', async () => {
			const counts = async () => {
				const counted: number[] = [];
				for (const table of ['messages', 'contents', 'content_attachments', 'attachment_contents']) counted.push(await sql.count(table));
				return counted;
			};
			const before = await counts();
			for (let round = 0; round < 10; round++) {
				const shared = attachment('both', 'bytes');
				const [x, y] = await insert(a, mailTo(['x@deleted.test', 'y@deleted.test'], { attachments: [shared] }));
				const [z] = await insert(a, mailTo(['z@deleted.test'], { attachments: [shared] }));
				await Promise.all([
					a.deletion.deleteMessage('x@deleted.test', x._id),
					b.deletion.deleteMessage('y@deleted.test', y._id),
					(round % 2 ? a : b).deletion.deleteMessage('z@deleted.test', z._id),
				]);
				expect(await counts()).toEqual(before);
			}
		});

		/** A message of `accountId` to two recipients. */
		const outgoing = (accountId: string): NewOutgoing => ({
			id: newId(),
			accountId,
			from: 'me@local.test',
			subject: 'hello',
			sent: new Date().toISOString(),
			recipients: ['a@remote.test', 'b@remote.test'].map((address) => ({
				address,
				field: 'to',
				route: 'relay',
				note: null,
				returnPath: null,
			})),
			inReplyTo: null,
			raw: Buffer.from('From: me@local.test\r\n\r\nhi\r\n'),
			ip: '192.0.2.1',
			via: '127.0.0.1',
		});

		it('never overspends the credits of an account both send from', async () => {
			const poor = (await a.accounts.create('poor', { credits: 7 })).id;
			const outcomes = await onBoth(12, (store) => store.outgoing.record(outgoing(poor), leaseTo('node-a')));
			expect(
				outcomes
					.filter((outcome) => outcome !== null)
					.map((outcome) => outcome.creditsRemaining)
					.sort(),
			).toEqual([1, 3, 5]);
			expect((await a.accounts.require(poor)).credits).toBe(1);
			expect(await b.outgoing.list(poor, 10)).toHaveLength(3);
		});

		it('leases each outbox entry to one of them', async () => {
			const rich = (await a.accounts.create('rich', { credits: 100 })).id;
			const ids: string[] = [];
			for (let i = 0; i < 40; i++) ids.push((await a.outgoing.record(outgoing(rich), leaseTo('sender')))!.record._id);
			await a.outgoing.releaseLeases('sender');
			const claims = await onBoth(8, (store, i) => store.outgoing.claimDue(Date.now() + 1000, 7, leaseTo(i % 2 ? 'node-a' : 'node-b')));
			expect(claims.flat().sort()).toEqual([...ids].sort());
		});

		it('tells the other node of the delivery events a settlement recorded, in its transaction; they read them with their account', async () => {
			const heardByB = heardBy(b);
			const sender = (await a.accounts.create('followed', { credits: 10 })).id;
			const { record } = (await a.outgoing.record(outgoing(sender), leaseTo('node-a')))!;
			const outcomes = new Map([
				['a@remote.test', { status: 'delivered' as const }],
				['b@remote.test', { status: 'permanent' as const, error: '550 no such user' }],
			]);
			const { events } = await a.outgoing.settle(record._id, outcomes, null);
			const ids = events.map(({ event }) => event._id);
			await waitFor(() => heardByB.some((announcement) => announcement.events?.length), 'node-b to hear of the events');
			expect(heardByB.filter((announcement) => announcement.events)).toEqual([
				{ node: 'node-a', messages: [], webhooks: false, forwards: false, events: ids },
			]);
			expect(await b.deliveryEvents.recorded([...ids].reverse())).toEqual([...events].reverse());
			expect(events.map(({ accountId, event }) => [accountId, event.recipient, event.type])).toEqual([
				[sender, 'a@remote.test', 'delivered'],
				[sender, 'b@remote.test', 'failed'],
			]);
		});

		it('leases each webhook delivery to one of them', async () => {
			const now = Date.now();
			const delivery = (i: number): NewDelivery => ({
				messageId: `m${i}`,
				accountId: 'account-1',
				address: 'hooked@x.test',
				url: 'https://hook.test/',
				kind: 'webhook',
			});
			const ids = await onBoth(60, (store, i) => store.webhookDeliveries.create(delivery(i), now + (i % 6)));
			const claims = await onBoth(10, (store, i) => store.webhookDeliveries.claim(now + 10, 9, leaseTo(i % 2 ? 'node-a' : 'node-b')));
			expect(
				claims
					.flat()
					.map((row) => row.id)
					.sort(),
			).toEqual([...ids].sort());
		});
	});
});
