import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openPostgresStore } from 'mailroom-server/dist/store/postgres/open';
import { MIGRATIONS } from 'mailroom-server/dist/store/postgres/migrations';
import { StoreOpenError } from 'mailroom-server/dist/store/store';
import { startPostgres, type TestPostgres } from '../../../helpers/postgres';
import { Sql } from './fixtures';
import { expectUpgradedMailFound } from '../../../helpers/stores';

describe('the PostgreSQL schema', () => {
	let postgres: TestPostgres;
	beforeAll(async () => {
		postgres = await startPostgres();
	});
	afterAll(() => postgres.stop());

	const open = (url: string, node = 'node-a') => openPostgresStore(url, { node, role: 'admin' });

	it('is created in an empty database, with its version recorded and the trigram extension', async () => {
		const url = await postgres.newDatabase();
		const store = await open(url);
		const sql = await Sql.on(url);
		try {
			expect(await sql.value('SELECT version FROM schema_version')).toBe(MIGRATIONS.length);
			expect(await sql.value("SELECT extname FROM pg_extension WHERE extname = 'pg_trgm'")).toBe('pg_trgm');
			expect(await store.accounts.isEmpty()).toBe(true);
		} finally {
			await sql.close();
			await store.close();
		}
	});

	it('is left as it is by the next open, which finds the data there', async () => {
		const url = await postgres.newDatabase();
		const first = await open(url);
		await first.accounts.create('kept');
		await first.close();
		const second = await open(url);
		try {
			expect((await second.accounts.list()).map((account) => account.name)).toEqual(['kept']);
		} finally {
			await second.close();
		}
	});

	it('is migrated once when several nodes start at the same moment', async () => {
		const url = await postgres.newDatabase();
		const stores = await Promise.all(['node-a', 'node-b', 'node-c', 'node-d'].map((node) => open(url, node)));
		try {
			await stores[0].accounts.create('one');
			expect(await stores[3].accounts.require('one')).toMatchObject({ name: 'one' });
			// The encryptedInbox key is made once and shared: every node hands out the same token.
			const tokens = await Promise.all(stores.map((store) => store.encryptedInboxes.tokenFor('a@x.test')));
			expect(new Set(tokens).size).toBe(1);
		} finally {
			await Promise.all(stores.map((store) => store.close()));
		}
	});

	it('indexes the private mail already there by its names and body when the search index gains them, public mail still not', async () => {
		// A database as the schema before that migration left it: one account owning one domain, mail to it and to another.
		const url = await postgres.newDatabase();
		const version = MIGRATIONS.findIndex((migration) => typeof migration === 'function');
		const sql = await Sql.on(url);
		try {
			for (const migration of MIGRATIONS.slice(0, version)) await sql.rows(migration as string);
			await sql.rows(
				'CREATE TABLE schema_version (singleton BOOLEAN PRIMARY KEY DEFAULT true CHECK (singleton), version INTEGER NOT NULL)',
			);
			await sql.rows('INSERT INTO schema_version (version) VALUES ($1)', [version]);
			await sql.rows(`INSERT INTO accounts (id, name, created) VALUES ('acct', 'owner', '2026-01-01')`);
			await sql.rows(`INSERT INTO domains (domain, owner, created) VALUES ('own.test', 'acct', '2026-01-01')`);
			await sql.rows(
				`WITH content AS (
					INSERT INTO contents (message_id, priority, headers, text, raw) VALUES ('<m@x>', 'normal', '[]', 'Pay by Friday', '') RETURNING id
				)
				INSERT INTO messages (id, inbox, original_inbox, domain, received, subject, from_json, to_json, size, ip, via, rtls, links_json,
					spam, content_id)
				SELECT name, inbox, inbox, substring(inbox FROM '[^@]*$'), 0, 'Invoice', '[{"address":"a@x.test","name":"Ann Lee"}]', '[]', 10,
					'', '', 0, '[]', 0, content.id
				FROM content, (VALUES ('private', 'me@own.test'), ('public', 'you@public.test')) AS mail (name, inbox)`,
			);
			await sql.rows(`INSERT INTO messages_search (seq, sender, recipients, subject)
				SELECT seq, 'a@x.test', 'me@own.test', 'invoice' FROM messages WHERE id = 'private'`);
		} finally {
			await sql.close();
		}

		const store = await open(url);
		try {
			await expectUpgradedMailFound(store);
		} finally {
			await store.close();
		}
	});

	it('refuses a database a newer Mailroom has written', async () => {
		const url = await postgres.newDatabase();
		await (await open(url)).close();
		const sql = await Sql.on(url);
		await sql.rows('UPDATE schema_version SET version = $1', [MIGRATIONS.length + 1]);
		await sql.close();
		const opening = open(url);
		await expect(opening).rejects.toThrow(StoreOpenError);
		await expect(opening).rejects.toThrow(
			`written by a newer Mailroom: schema ${MIGRATIONS.length + 1}, this version knows ${MIGRATIONS.length}`,
		);
	});
});
