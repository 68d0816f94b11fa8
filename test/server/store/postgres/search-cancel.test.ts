import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseSearchQuery } from 'mailroom-server/dist/mail/search-query';
import { SearchAbandonedError, budgetOf } from 'mailroom-server/dist/store/search-budget';
import { insert, mailTo, openTestStore, type TestStore } from '../../../helpers/stores';
import { waitFor } from '../../../helpers/webhook-receiver';
import { Sql } from './fixtures';

/** 66 lines of 998 "a": 64 KiB of one character, which a LIKE pattern of 255 "a"s and another letter compares slowly. */
const REPEATED_BODY = `${'a'.repeat(998)}\n`.repeat(66);
const RECORDS = 100;

describe('PostgreSQL store: a search whose caller goes away', () => {
	let store: TestStore;
	let sql: Sql;
	let account: string;
	/** The backends of the store's database running a statement now, but for the test's own: the search's, alone. */
	const searching = () =>
		sql.rows<{ pid: number }>(
			`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'`,
		);
	const stateOf = async (pid: number) =>
		(await sql.rows<{ state: string }>('SELECT state FROM pg_stat_activity WHERE pid = $1', [pid]))[0]?.state ?? 'gone';

	beforeAll(async () => {
		store = await openTestStore('postgres');
		sql = await Sql.on(store.config.databaseUrl!);
		account = (await store.accounts.create('impatient')).id;
		await store.domains.claim('gone.test', account);
		const inboxes = Array.from({ length: RECORDS }, (_, i) => `box${i}@gone.test`);
		await insert(store, mailTo(inboxes, { text: REPEATED_BODY }));
	});
	afterAll(async () => {
		await sql.close();
		await store.close();
	});

	it('cancels the statement it runs at once, and its connection goes back to the pool', async () => {
		// Three excluded terms that no body holds: one statement compares each with all 100 bodies, for seconds (6-8 s here).
		const query = parseSearchQuery([...'bcd'].map((letter) => `-${'a'.repeat(255)}${letter}`).join(' '));
		const caller = new AbortController();
		const outcome = store.accountInbox.search(account, query, budgetOf(60_000, caller.signal)).then(
			() => 'answered',
			(err: unknown) => (err instanceof SearchAbandonedError ? 'abandoned' : String(err)),
		);
		const [{ pid }] = await waitFor(async () => ((await searching()).length ? searching() : undefined), 'the search statement to run');
		const aborted = performance.now();
		caller.abort();
		expect(await outcome).toBe('abandoned');
		expect(performance.now() - aborted).toBeLessThan(2000);
		// Idle: its statement and transaction ended, and the connection is kept (not closed) and free.
		expect(await stateOf(pid)).toBe('idle');
		expect(JSON.parse(await store.accountInbox.search(account, parseSearchQuery('a'.repeat(256))))).toHaveLength(RECORDS);
	});
});
