import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { POSTGRES } from 'mailroom-server/dist/store/sql/sql-db';
import { SCAN_LIMIT, SEARCH_LIMIT, type Store } from 'mailroom-server/dist/store/store';
import { PoolDb, openPool, targetOf, type Db } from 'mailroom-server/dist/store/postgres/database';
import { PostgresAccountInbox } from 'mailroom-server/dist/store/postgres/account-inbox';
import { insertEntries, searchTextOf } from 'mailroom-server/dist/store/postgres/search-index';
import { parseSearchQuery } from 'mailroom-server/dist/mail/search-query';
import { startPostgres, type TestPostgres } from '../../../helpers/postgres';
import { Sql, freshStore, idsIn, mailTo, subjectsIn } from './fixtures';

const from = (address: string) => [{ address, name: '' }];

describe('PostgreSQL store: every message of an account, listed, filtered and searched', () => {
	let postgres: TestPostgres;
	let store: Store;
	let sql: Sql;
	let alice: string;
	let bob: string;
	const at = Date.UTC(2026, 7, 1);
	const ids: Record<string, string> = {};
	/** The subjects of what `query` finds for the account `owner`, newest first. */
	const search = async (owner: string, query: string) => subjectsIn(await store.accountInbox.search(owner, parseSearchQuery(query)));

	beforeAll(async () => {
		postgres = await startPostgres();
		const fresh = await freshStore(postgres);
		store = fresh.store;
		sql = await Sql.on(fresh.url);
		alice = (await store.accounts.create('alice')).id;
		bob = (await store.accounts.create('bob')).id;
		await store.domains.claim('team.test', alice);
		await store.addresses.reserve('me@personal.test', alice);
		await store.addresses.reserve('desk@team.test', alice);
		await store.addresses.reserve('bob@personal.test', bob);
		const deliver = async (name: string, inbox: string, subject: string, sender: string, offset: number) => {
			ids[name] = (await store.messages.insert(mailTo([inbox], { subject, from: from(sender) }, new Date(at + offset))))[0]._id;
		};
		await deliver('oldest', 'sales@team.test', 'Été à Paris', 'agency@travel.test', 0);
		await deliver('desk', 'desk@team.test', 'Invoice 50% off', 'billing@vendor.test', 1);
		await deliver('personal', 'me@personal.test', 'Lunch?', 'friend@mail.test', 2);
		await deliver('underscore', 'sales@team.test', 'snake_case names', 'dev@code.test', 3);
		await deliver('newest', 'me@personal.test', 'Re: invoice', 'billing@vendor.test', 4);
		await deliver('bobs', 'bob@personal.test', 'invoice for bob', 'billing@vendor.test', 5);
		await deliver('public', 'anyone@public.test', 'invoice in public', 'billing@vendor.test', 6);
	});
	afterAll(async () => {
		await sql.close();
		await store.close();
		await postgres.stop();
	});

	it("lists the account's mail newest first, each message once, with skip, limit, since and the unread count", async () => {
		await store.messageState.setRead('me@personal.test', ids.personal, true);
		const all = ['newest', 'underscore', 'personal', 'desk', 'oldest'].map((name) => ids[name]);
		const page = async (limit: number, skip: number, since?: number) => store.accountInbox.list(alice, limit, skip, since);
		expect(idsIn((await page(10, 0)).messages)).toEqual(all);
		expect((await page(10, 0)).unread).toBe(4);
		expect(idsIn((await page(2, 1)).messages)).toEqual(all.slice(1, 3));
		expect(idsIn((await page(10, 0, at + 2)).messages)).toEqual(all.slice(0, 2));
		expect(await store.accountInbox.list('nobody', 10, 0)).toEqual({ messages: '[]', unread: 0 });
		await store.messageState.setRead('me@personal.test', ids.personal, false);
	});

	it('searches senders, recipients and inboxes, and subjects, case-insensitively in any script, never public or others mail', async () => {
		expect(await search(alice, 'INVOICE')).toEqual(['Re: invoice', 'Invoice 50% off']);
		expect(await search(alice, 'été à')).toEqual(['Été à Paris']);
		expect(await search(alice, 'ÉTÉ')).toEqual(['Été à Paris']);
		expect(await search(alice, 'VENDOR.TEST')).toEqual(['Re: invoice', 'Invoice 50% off']);
		expect(await search(alice, 'sales@team')).toEqual(['snake_case names', 'Été à Paris']);
		expect(await search(bob, 'invoice')).toEqual(['invoice for bob']);
		// LIKE's wildcards are matched as the characters they are.
		expect(await search(alice, '50%')).toEqual(['Invoice 50% off']);
		expect(await search(alice, 'e_c')).toEqual(['snake_case names']);
		expect(await search(alice, 'nothing like it')).toEqual([]);
	});

	it('finds short terms too, in the newest messages of each source', async () => {
		expect(await search(alice, 'É')).toEqual(['Été à Paris']);
		expect(await search(alice, 'Re')).toEqual(['Re: invoice']);
		expect(await search(alice, '?')).toEqual(['Lunch?']);
		expect(await search(alice, '%')).toEqual(['Invoice 50% off']);
	});

	it('filters by every condition given: to (the inbox too), from, subject and read', async () => {
		const filter = async (f: object) => subjectsIn(await store.accountInbox.filter(alice, f));
		expect(await filter({ to: 'me@personal' })).toEqual(['Re: invoice', 'Lunch?']);
		expect(await filter({ to: 'me@personal', from: 'VENDOR' })).toEqual(['Re: invoice']);
		expect(await filter({ subject: 'invoice', from: 'billing' })).toEqual(['Re: invoice', 'Invoice 50% off']);
		expect(await filter({ subject: 'invoice', to: 'e' })).toEqual(['Re: invoice', 'Invoice 50% off']);
		expect(await filter({ from: 'fr' })).toEqual(['Lunch?']);
		await store.messageState.setRead('desk@team.test', ids.desk, true);
		expect(await filter({ read: true })).toEqual(['Invoice 50% off']);
		expect(await filter({ subject: 'invoice', read: false })).toEqual(['Re: invoice']);
		expect(await filter({ read: false })).toHaveLength(4);
		await store.messageState.setRead('desk@team.test', ids.desk, false);
	});

	it('follows ownership: mail already there becomes searchable when its inbox turns private, and stops when it turns public', async () => {
		const carol = (await store.accounts.create('carol')).id;
		await store.messages.insert(mailTo(['later@claimed.test'], { subject: 'before the claim' }));
		await store.messages.insert(mailTo(['kept@claimed.test'], { subject: 'kept reserved' }));
		await store.messages.insert(mailTo(['solo@loose.test'], { subject: 'before the reservation' }));
		expect(await search(carol, 'before')).toEqual([]);

		await store.addresses.reserve('solo@loose.test', carol);
		await store.domains.claim('claimed.test', carol);
		await store.addresses.reserve('kept@claimed.test', carol);
		expect(await search(carol, 'before')).toEqual(['before the reservation', 'before the claim']);
		expect(await search(carol, 'kept')).toEqual(['kept reserved']);

		await store.domains.remove('claimed.test');
		expect(await search(carol, 'before')).toEqual(['before the reservation']);
		expect(await search(carol, 'kept')).toEqual(['kept reserved']);
		await store.addresses.release('solo@loose.test');
		expect(await search(carol, 'before')).toEqual([]);
		expect(
			await sql.value(
				"SELECT count(*) FROM messages_search s JOIN messages m USING (seq) WHERE m.domain IN ('loose.test', 'claimed.test')",
			),
		).toBe(1);
	});
});

/** Records the plans of the statements a part runs instead of running them. */
class Explaining implements Db {
	readonly plans: string[] = [];
	readonly outside = this;
	readonly dialect = POSTGRES;

	constructor(private readonly db: Db) {}

	async rows<Row>(text: string, params?: unknown[]): Promise<Row[]> {
		const lines = await this.db.rows<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, params);
		this.plans.push(lines.map((line) => line['QUERY PLAN']).join('\n'));
		return [];
	}

	/** A row whose seq, as a search's boundary, leaves it no entry to walk and all of them to take from the indexes. */
	async row<Row>(text: string, params?: unknown[]): Promise<Row | undefined> {
		await this.rows(text, params);
		return { seq: 2 ** 31 } as unknown as Row;
	}

	run(): Promise<number> {
		throw new Error('not for writing');
	}

	transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
		return work(this);
	}
}

describe('PostgreSQL store: account-wide reads over a large domain', () => {
	let postgres: TestPostgres;
	let store: Store;
	let url: string;
	let sql: Sql;
	let account: string;
	const filler = SCAN_LIMIT + 10;
	/** The subjects of what `query` finds for the account `owner`, newest first. */
	const search = async (owner: string, query: string) => subjectsIn(await store.accountInbox.search(owner, parseSearchQuery(query)));

	beforeAll(async () => {
		postgres = await startPostgres();
		({ store, url } = await freshStore(postgres));
		sql = await Sql.on(url);
		account = (await store.accounts.create('owner')).id;
		await store.domains.claim('big.test', account);
		// The oldest message is the only one with "zq" in it, and it lies beyond the scan window. Written by SQL: storing
		// ten thousand messages one by one would take the test most of its time.
		await sql.rows(
			`WITH content AS (
				INSERT INTO contents (message_id, priority, headers, text, raw) VALUES ('<m@x>', 'normal', '[]', '', '') RETURNING id
			)
			INSERT INTO messages (id, inbox, original_inbox, domain, received, subject, from_json, to_json, size, ip, via, rtls, links_json,
				spam, content_id, thread_id)
			SELECT 'bulk-' || i, 'x' || i % 7 || '@big.test', 'x' || i % 7 || '@big.test', 'big.test', $1::bigint + i,
				CASE WHEN i = 0 THEN 'old zq' ELSE 'filler ' || i END, '[{"address":"a@sender.test","name":""}]', '[]', 10, '', '', 0, '[]', 0,
				content.id, 'bulk-' || i
			FROM content, generate_series(0, $2::int) AS i`,
			[1_700_000_000_000, filler],
		);
		// Their search text is made as the store makes it, in one statement.
		const rows = await sql.rows<{ seq: number; inbox: string; subject: string }>(
			"SELECT seq, inbox, subject FROM messages WHERE domain = 'big.test'",
		);
		const texts = rows.map(({ inbox, subject }) => searchTextOf({ from: from('a@sender.test'), to: [], subject, bodyStart: '' })(inbox));
		const pool = openPool(url, 1);
		await insertEntries(
			new PoolDb(pool, targetOf(url)),
			rows.map((row) => row.seq),
			texts,
		).finally(() => pool.end());
		await sql.rows('ANALYZE');
	}, 60_000);
	afterAll(async () => {
		await sql.close();
		await store.close();
		await postgres.stop();
	});

	it(`looks for a term too short for the index in the newest ${SCAN_LIMIT} messages of each source only`, async () => {
		expect(await search(account, 'zq')).toEqual([]);
		expect(subjectsIn(await store.accountInbox.filter(account, { subject: 'zq' }))).toEqual([]);
		expect(await search(account, '10')).toContain(`filler ${filler}`);
	});

	it('finds a longer term in all of the mail, through the indexes, and stops at the limit', async () => {
		expect(await search(account, 'old zq')).toEqual(['old zq']);
		const many = await search(account, 'filler');
		expect(many).toHaveLength(SEARCH_LIMIT);
		expect(many[0]).toBe(`filler ${filler}`);
	});

	// Ten thousand rows are few enough for the planner to read them whole, or to walk the newest first until it finds a
	// rare term; it must still be able to answer every query from an index.
	it('can answer every account-wide read from indexes: trigrams and words for search, each source newest first for listings and scans', async () => {
		const pool = openPool(url, 1);
		try {
			const db = new PoolDb(pool, targetOf(url));
			const explaining = new Explaining(db);
			const inbox = new PostgresAccountInbox(explaining);
			await db.run('SET enable_seqscan = off');
			await db.run('SET enable_indexscan = off');
			await inbox.search(account, parseSearchQuery('old zq'));
			await db.run('RESET enable_indexscan');
			await inbox.filter(account, { subject: 'zq', read: false });
			await inbox.list(account, 20, 0);
			// A search finds the boundary, walks the entries newer than it, then takes the older ones from the indexes.
			const [, , search, scan, list, unread] = explaining.plans;
			expect(search).toContain('messages_search_trigrams');
			expect(search).toContain('messages_search_words');
			expect(scan).toContain('messages_domain_received');
			expect(list).toContain('messages_domain_received');
			expect(unread).toContain('messages_domain_unread');
			for (const plan of explaining.plans) expect(plan).not.toMatch(/Seq Scan on messages\b/);
		} finally {
			await pool.end();
		}
	});
});
