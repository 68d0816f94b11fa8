import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import Database from 'better-sqlite3';
import { DATABASE_FILE, openDatabase } from 'mailroom-server/dist/store/sqlite/database';
import { MIGRATIONS } from 'mailroom-server/dist/store/sqlite/migrations';
import { SqliteMessageStore } from 'mailroom-server/dist/store/sqlite/messages';
import { RECORD_COLUMNS } from 'mailroom-server/dist/store/message-records';
import { threadIdOf } from 'mailroom-server/dist/mail/threading';
import { omit } from '../../../helpers/messages';
import { StoreOpenError } from 'mailroom-server/dist/store/store';
import { type MessageRecord } from 'mailroom-server/dist/schemas/message';
import { tempDataDir } from '../../../helpers/mailroom';
import { expectUpgradedMailFound } from '../../../helpers/stores';
import { openStore } from 'mailroom-server/dist/store/open-store';

describe('the listing index migration', () => {
	let dir: string;
	beforeEach(() => {
		dir = tempDataDir();
	});
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	it('upgrades a store holding mail: every record stays the same and listings read the new index', async () => {
		// A store as the schema before the listing index left it, filled with interleaved mail to three inboxes.
		const version = MIGRATIONS.findIndex((sql) =>
			sql.includes('CREATE INDEX messages_inbox_received ON messages(inbox, received DESC, seq DESC, id,'),
		);
		const old = new Database(join(dir, DATABASE_FILE));
		old.pragma('journal_mode = WAL');
		for (const sql of MIGRATIONS.slice(0, version)) old.exec(sql);
		old.pragma(`user_version = ${version}`);
		const contentId = old
			.prepare(`INSERT INTO contents (message_id, priority, headers, text, raw) VALUES ('<m@x>', 'normal', '[]', 't', x'00')`)
			.run().lastInsertRowid;
		const insert =
			old.prepare(`INSERT INTO messages (id, inbox, original_inbox, domain, received, subject, from_json, to_json, cc_json, bcc_json,
			size, attachments_json, ip, via, rtls, links_json, spam, folder, labels_json, read, saved_by, content_id)
			VALUES (?, ?, ?, 'x.test', ?, ?, '[{"address":"a@x.test","name":"A"}]', '[]', NULL, '[]', 10, NULL, '1.2.3.4', '1.2.3.4', 0, '["https://x.test/"]', 0.25,
				'inbox', ?, ?, ?, ?)`);
		const inboxes = ['a@x.test', 'b@x.test', 'c@x.test'];
		for (let i = 0; i < 150; i++) {
			const inbox = inboxes[i % 3];
			insert.run(
				`id${i}`,
				inbox,
				inbox,
				Date.UTC(2026, 0, 1) + Math.floor(i / 3),
				`subject ${i}`,
				i % 5 ? '[]' : '["l"]',
				i % 4 ? null : 1,
				i % 7 ? null : 'acct',
				contentId,
			);
		}
		const all = (db: Database.Database) => db.prepare('SELECT * FROM messages ORDER BY seq').all();
		const before = all(old);
		old.close();

		const db = openDatabase(dir);
		expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
		expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
		// What later migrations added aside (threads: test/server/store/threads.test.ts; what the message says, empty for mail
		// stored before: no auth, no stripped text, no codes), every column is as it was.
		const kept = ['message_id_header', 'date_header', 'reply_to_json', 'attachment_files_json'];
		const added = ['thread_id', 'thread_account', 'message_key', 'auth_json', 'stripped_text', 'stripped_signature', 'codes_json', ...kept];
		const withoutThreads = (row: Record<string, unknown>) => {
			expect(row).toMatchObject({ auth_json: null, stripped_text: null, stripped_signature: null, codes_json: '[]' });
			expect(row).toMatchObject({ message_id_header: null, date_header: null, reply_to_json: null, attachment_files_json: null });
			return omit(row, ...added);
		};
		expect((all(db) as Record<string, unknown>[]).map(withoutThreads)).toEqual(before);
		const plan = db
			.prepare(`EXPLAIN QUERY PLAN SELECT ${RECORD_COLUMNS} FROM messages WHERE inbox = ? ORDER BY received DESC, seq DESC LIMIT 10`)
			.all('a@x.test') as { detail: string }[];
		expect(plan.map((step) => step.detail)).toEqual(['SEARCH messages USING COVERING INDEX messages_inbox_received (inbox=?)']);
		const listing = JSON.parse(await new SqliteMessageStore(db).listInboxJson('b@x.test', 20)) as MessageRecord[];
		expect(listing.map((record) => record._id)).toEqual(Array.from({ length: 20 }, (_, n) => `id${148 - 3 * n}`));
		expect(listing[0]).toEqual({
			_id: 'id148',
			threadId: threadIdOf(null, '<m@x>'),
			from: [{ address: 'a@x.test', name: 'A' }],
			to: [],
			cc: null,
			bcc: [],
			subject: 'subject 148',
			savedBy: null,
			originalInbox: 'b@x.test',
			inbox: 'b@x.test',
			domain: 'x.test',
			received: new Date(Date.UTC(2026, 0, 1) + 49).toISOString(),
			size: 10,
			attachments: null,
			ip: '1.2.3.4',
			via: '1.2.3.4',
			folder: 'inbox',
			labels: [],
			read: true,
			rtls: false,
			links: ['https://x.test/'],
			auth: null,
			strippedText: null,
			strippedSignature: null,
			codes: [],
			messageId: null,
			date: null,
			replyTo: null,
			attachmentFiles: null,
			spam: 0.25,
		});
		db.close();
	});

	it('refuses a database written by a newer Mailroom, saying so', () => {
		openDatabase(dir).close();
		const newer = new Database(join(dir, DATABASE_FILE));
		newer.pragma(`user_version = ${MIGRATIONS.length + 1}`);
		newer.close();
		expect(() => openDatabase(dir)).toThrow(StoreOpenError);
		expect(() => openDatabase(dir)).toThrow(
			`was written by a newer Mailroom (schema ${MIGRATIONS.length + 1}; this version knows ${MIGRATIONS.length})`,
		);
	});
});

describe('the search index migration (names and body)', () => {
	let dir: string;
	beforeEach(() => {
		dir = tempDataDir();
	});
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	it('indexes the private mail already there by its names and body, public mail still not', async () => {
		// A store as the schema before the migration left it: one account owning one domain, mail to it and to another.
		const version = MIGRATIONS.findIndex((sql) => sql.includes('sender, sender_names, recipients, recipient_names, subject, body'));
		const old = new Database(join(dir, DATABASE_FILE));
		old.pragma('journal_mode = WAL');
		for (const sql of MIGRATIONS.slice(0, version)) old.exec(sql);
		old.pragma(`user_version = ${version}`);
		old.prepare(`INSERT INTO accounts (id, name, created) VALUES ('acct', 'owner', '2026-01-01')`).run();
		old.prepare(`INSERT INTO domains (domain, owner, created) VALUES ('own.test', 'acct', '2026-01-01')`).run();
		const contentId = old
			.prepare(`INSERT INTO contents (message_id, priority, headers, text, raw) VALUES ('<m@x>', 'normal', '[]', 'Pay by Friday', x'00')`)
			.run().lastInsertRowid;
		const insert = old.prepare(`INSERT INTO messages (id, inbox, original_inbox, domain, received, subject, from_json, to_json, size,
			ip, via, rtls, links_json, spam, content_id)
			VALUES (?, ?, ?, ?, 0, 'Invoice', '[{"address":"a@x.test","name":"Ann Lee"}]', '[]', 10, '', '', 0, '[]', 0, ?)`);
		insert.run('private', 'me@own.test', 'me@own.test', 'own.test', contentId);
		insert.run('public', 'you@public.test', 'you@public.test', 'public.test', contentId);
		old.close();

		const store = await openStore({ dataDir: dir, durability: 'normal' }, 'server', 'test');
		try {
			await expectUpgradedMailFound(store);
		} finally {
			await store.close();
		}
	});
});
