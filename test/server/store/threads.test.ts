import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Database from 'better-sqlite3';
import { messageIdsIn, threadDigest, threadIdOf } from 'mailroom-server/dist/mail/threading';
import { newId } from 'mailroom-server/dist/store/ids';
import { openStore } from 'mailroom-server/dist/store/open-store';
import { MIGRATIONS as POSTGRES_MIGRATIONS } from 'mailroom-server/dist/store/postgres/migrations';
import { DATABASE_FILE, openDatabase } from 'mailroom-server/dist/store/sqlite/database';
import { MIGRATIONS as SQLITE_MIGRATIONS } from 'mailroom-server/dist/store/sqlite/migrations';
import type { NewOutgoing, Store, ThreadEntry } from 'mailroom-server/dist/store/store';
import { query, withQueries } from '../../helpers/database';
import { tempDataDir } from '../../helpers/mailroom';
import { startPostgres, type TestPostgres } from '../../helpers/postgres';
import { ENGINES, insert, mailTo, storePerBlock, type Engine } from '../../helpers/stores';

/** Text the digest and the id pattern must treat alike in JavaScript and in SQL. */
const DIGESTED = ['<a@x.test>', '<ü-ñ-😀@x.test>', 'plain', ''];
const HEADER_VALUES = [
	'<a@x> <b@x>',
	'junk <a b> <ok@x>',
	`<${'a'.repeat(997)}> <after@x>`,
	`<short@x> <${'a'.repeat(997)}>`,
	`<${'a'.repeat(996)}>`,
	'\t<tab@x>',
	'no id at all',
	'<ü@x>',
];

/** Sent mail of `account` answering `inReplyTo` (a Message-ID), with its raw source's header saying so. */
const sentMail = (account: string, headers: string, sent = new Date()): NewOutgoing => {
	const id = newId();
	return {
		id,
		accountId: account,
		from: 'me@own.test',
		subject: 'Re',
		sent: sent.toISOString(),
		recipients: [{ address: 'you@public.test', field: 'to', route: 'local', note: null, returnPath: null }],
		inReplyTo: null,
		raw: Buffer.from(`Message-ID: <${id}@own.test>\r\n${headers}From: me@own.test\r\n\r\nhi\r\n`),
		ip: '127.0.0.1',
		via: '127.0.0.1',
	};
};

const ids = (entries: ThreadEntry[]) => entries.map((entry) => entry.record._id);

describe.each(ENGINES)('threads in the store (%s)', (engine) => {
	const current = storePerBlock(engine);
	let account: string;
	beforeAll(async () => {
		account = (await current().accounts.create('owner', { credits: 100 })).id;
		await current().domains.claim('own.test', account);
	});

	/** The first row of each query, as lists of values, run on one connection with the functions the store's connections have. */
	const firstRows = async (queries: [string, unknown[]][]): Promise<unknown[][]> => {
		if (engine === 'postgres') {
			return withQueries(current(), async (sql) => {
				const rows: unknown[][] = [];
				for (const [text, params] of queries) rows.push(Object.values((await sql(text, params))[0]));
				return rows;
			});
		}
		const db = openDatabase(current().config.dataDir);
		try {
			return queries.map(([text, params]) => Object.values(db.prepare(text).get(...params) as Record<string, unknown>));
		} finally {
			db.close();
		}
	};

	it('digests keys and finds message ids in SQL as JavaScript does', async () => {
		const digests = DIGESTED.flatMap((value) => [null, account].map((scope) => [scope, value] as const));
		const rows = await firstRows([
			...digests.map(([scope, value]): [string, unknown[]] => [
				"SELECT mailroom_digest('message', ?, ?) AS m, mailroom_digest('thread', ?, ?) AS t",
				[scope, value, scope, value],
			]),
			...HEADER_VALUES.map((value): [string, unknown[]] => ['SELECT mailroom_first_id(?) AS id', [value]]),
		]);
		expect(rows).toEqual([
			...digests.map(([scope, value]) => [threadDigest('message', scope, value), threadDigest('thread', scope, value)]),
			...HEADER_VALUES.map((value) => [messageIdsIn(value)[0] ?? null]),
		]);
	});

	it('orders a thread by time, sent before received at one time, then as stored, and pages through it alike', async () => {
		const store = current();
		const at = new Date(Date.UTC(2026, 5, 1));
		const [first] = await insert(store, mailTo(['a@own.test'], { messageId: '<order-1@x>' }, new Date(at.getTime() - 1)));
		const received = [
			...(await insert(
				store,
				mailTo(['b@own.test', 'c@own.test'], { messageId: '<order-2@x>', headers: [['references', '<order-1@x>']] }, at),
			)),
			...(await insert(store, mailTo(['d@own.test'], { messageId: '<order-3@x>', headers: [['in-reply-to', '<order-2@x>']] }, at))),
		];
		const sent = (await store.outgoing.record(sentMail(account, 'In-Reply-To: <order-1@x>\r\n', at), { node: 'n', until: 0 }))!.record;
		expect(new Set([first, ...received, sent].map((record) => record.threadId))).toEqual(new Set([first.threadId]));
		const expected = [first._id, sent._id, ...received.map((record) => record._id)];
		expect(ids(await store.threads.page(first.threadId, 10))).toEqual(expected);
		const paged: string[] = [];
		let after: ThreadEntry['place'] | undefined;
		for (;;) {
			const [entry] = await store.threads.page(first.threadId, 1, after);
			if (!entry) break;
			paged.push(entry.record._id);
			after = entry.place;
		}
		expect(paged).toEqual(expected);
		expect(await store.threads.scopeOf(first.threadId)).toEqual({ account });
		expect(await store.threads.scopeOf('0123456789abcdef01234567')).toBeUndefined();
	});
});

/** Rows of a store from before threads: an account owning own.test, mail to it and to a public inbox, sent mail. */
const LEGACY_ROWS = [
	`INSERT INTO accounts (id, name, credits, created) VALUES ('acct', 'owner', 10, '2026-01-01')`,
	`INSERT INTO domains (domain, owner, created) VALUES ('own.test', 'acct', '2026-01-01')`,
	`INSERT INTO contents (message_id, priority, headers, text, raw) VALUES
		('<root@x>', 'normal', '[]', 't', ''),
		('<reply@x>', 'normal', '[["references","<root@x>"],["in-reply-to","<reply-to@x>"]]', 't', ''),
		('<answer@x>', 'normal', '[["received","x"],["in-reply-to","<root@x> (the first)"]]', 't', ''),
		('', 'normal', '[]', 't', '')`,
	...[
		['m1', 'me@own.test', '<root@x>', 1],
		['m2', 'me@own.test', '<reply@x>', 2],
		['m2p', 'you@public.test', '<reply@x>', 2],
		['m3', 'me@own.test', '<answer@x>', 3],
		['m4', 'me@own.test', '', 4],
	].map(
		([id, inbox, messageId, received]) =>
			`INSERT INTO messages (id, inbox, original_inbox, domain, received, subject, from_json, to_json, size, ip, via, rtls, links_json,
				spam, content_id)
			SELECT '${id}', '${inbox}', '${inbox}', '${String(inbox).split('@')[1]}', ${Date.UTC(2026, 0, 1) + Number(received)}, 's', '[]', '[]',
				1, '', '', 0, '[]', 0, id FROM contents WHERE message_id = '${messageId}'`,
	),
	`INSERT INTO outgoing_messages (id, account_id, from_address, subject, sent, recipients_json, in_reply_to, status) VALUES
		('o1', 'acct', 'me@own.test', 'Re', '2026-01-02T00:00:00.000Z', '[]', 'm1', 'delivered'),
		('o2', 'acct', 'me@own.test', 'Hi', '2026-01-03T00:00:00.000Z', '[]', NULL, 'delivered')`,
];

/** A store of `engine` as it was before threads, holding LEGACY_ROWS; opened, it upgrades. */
async function legacyStore(engine: Engine, postgres: () => TestPostgres): Promise<{ open: () => Promise<Store>; remove: () => void }> {
	const dataDir = tempDataDir();
	const remove = () => rmSync(dataDir, { recursive: true, force: true });
	if (engine === 'sqlite') {
		const version = SQLITE_MIGRATIONS.findIndex((sql) => sql.includes('CREATE INDEX messages_thread'));
		const db = new Database(join(dataDir, DATABASE_FILE));
		for (const sql of SQLITE_MIGRATIONS.slice(0, version)) db.exec(sql);
		db.pragma(`user_version = ${version}`);
		for (const sql of LEGACY_ROWS) db.exec(sql);
		db.close();
		return { open: () => openStore({ dataDir, durability: 'normal' }, 'server', 'test-upgrade'), remove };
	}
	// The template database is migrated already: what the threads migration added is taken away again, and what the
	// migrations after it added (they run again after it).
	const version = POSTGRES_MIGRATIONS.findIndex((migration) => typeof migration === 'string' && migration.includes('mailroom_digest'));
	const databaseUrl = await postgres().newDatabase({ migrated: true });
	const server = { config: { dataDir, databaseUrl } };
	await query(
		server,
		`DROP INDEX messages_thread, messages_message_key, outgoing_messages_thread, outgoing_messages_message_key;
		ALTER TABLE messages DROP COLUMN thread_id, DROP COLUMN thread_account, DROP COLUMN message_key;
		ALTER TABLE outgoing_messages DROP COLUMN thread_id, DROP COLUMN message_key;
		DROP FUNCTION mailroom_digest, mailroom_first_id;
		DROP TABLE outbox_raw_pieces;
		DROP TABLE reply_hooks;
		DROP TABLE account_chaos;
		ALTER TABLE messages DROP COLUMN message_id_header, DROP COLUMN date_header, DROP COLUMN reply_to_json,
			DROP COLUMN attachment_files_json;
		DROP TABLE return_paths, delivery_events, event_subscriptions, suppressions;
		ALTER TABLE webhook_deliveries DROP COLUMN reply_hook_expires, DROP COLUMN event_id;
		UPDATE schema_version SET version = ${version};
		${LEGACY_ROWS.join(';\n')}`,
	);
	return { open: () => openStore({ dataDir, durability: 'normal', databaseUrl }, 'server', 'test-upgrade'), remove };
}

describe.each(ENGINES)('the threads migration (%s)', (engine) => {
	let postgres: TestPostgres;
	beforeAll(async () => {
		if (engine === 'postgres') postgres = await startPostgres();
	});
	afterAll(() => postgres?.stop());

	it('gives stored mail the threads its headers give, and sent mail its original’s, found by new mail from then on', async () => {
		const legacy = await legacyStore(engine, () => postgres);
		const store = await legacy.open();
		try {
			const thread = async (inbox: string, id: string) => (await store.messages.get(inbox, id))!.threadId;
			const root = threadIdOf('acct', '<root@x>');
			// m3 names its original in In-Reply-To only, after a comment.
			for (const id of ['m1', 'm2', 'm3']) expect(await thread('me@own.test', id)).toBe(root);
			expect(await thread('you@public.test', 'm2p')).toBe(threadIdOf(null, '<root@x>'));
			expect(await thread('me@own.test', 'm4')).toBe(threadIdOf('acct', 'm4'));
			expect((await store.outgoing.get('o1'))!.threadId).toBe(root);
			expect((await store.outgoing.get('o2'))!.threadId).toBe(threadIdOf('acct', '<o2@own.test>'));
			expect(ids(await store.threads.page(root, 10))).toEqual(['m1', 'm2', 'm3', 'o1']);
			expect(await store.threads.scopeOf(root)).toEqual({ account: 'acct' });

			// Mail stored from now on finds the upgraded mail by its Message-ID: received and sent alike.
			const [later] = await insert(store, mailTo(['me@own.test'], { messageId: '<later@x>', headers: [['in-reply-to', '<reply@x>']] }));
			expect(later.threadId).toBe(root);
			const answer = (await store.outgoing.record(sentMail('acct', 'References: <o2@own.test>\r\n'), { node: 'n', until: 0 }))!.record;
			expect(answer.threadId).toBe(threadIdOf('acct', '<o2@own.test>'));
		} finally {
			await store.close();
			legacy.remove();
		}
	});
});
