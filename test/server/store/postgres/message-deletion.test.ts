import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Store } from 'mailroom-server/dist/store/store';
import { openPostgresStore } from 'mailroom-server/dist/store/postgres/open';
import { startPostgres, type TestPostgres } from '../../../helpers/postgres';
import { Sql, attachment, freshStore, idsIn, mailTo } from './fixtures';

describe('PostgreSQL store: deleting messages, and what the retention sweep may delete', () => {
	let postgres: TestPostgres;
	let store: Store;
	let url: string;
	let sql: Sql;
	beforeAll(async () => {
		postgres = await startPostgres();
		({ store, url } = await freshStore(postgres));
		sql = await Sql.on(url);
	});
	afterAll(async () => {
		await sql.close();
		await store.close();
		await postgres.stop();
	});
	beforeEach(async () => {
		await sql.rows('TRUNCATE messages, messages_search, contents, content_attachments, attachment_contents CASCADE');
	});

	const counts = async () => {
		const counted: number[] = [];
		for (const table of ['messages', 'contents', 'content_attachments', 'attachment_contents']) counted.push(await sql.count(table));
		return counted;
	};

	it('keeps shared content until the last recipient record goes', async () => {
		const [a, b] = await store.messages.insert(mailTo(['a@x.test', 'b@x.test'], { attachments: [attachment('c1', 'one')] }));
		expect(await store.deletion.deleteMessage('a@x.test', a._id)).toBe(true);
		expect(await sql.count('contents')).toBe(1);
		expect(await (await store.messages.content('b@x.test', b._id))!.raw()).toEqual(Buffer.from('raw'));
		expect(await store.deletion.deleteMessage('a@x.test', a._id)).toBe(false);
		expect(await store.deletion.deleteMessage('a@x.test', b._id)).toBe(false);
		expect(await store.deletion.deleteMessage('b@x.test', b._id)).toBe(true);
		expect(await counts()).toEqual([0, 0, 0, 0]);
	});

	it('keeps attachment bytes shared by other messages until the last one goes', async () => {
		const [first] = await store.messages.insert(
			mailTo(['a@x.test'], { attachments: [attachment('shared', 'same'), attachment('own', 'mine')] }),
		);
		const [second] = await store.messages.insert(mailTo(['b@x.test'], { attachments: [attachment('shared', 'same')] }));
		await store.deletion.deleteMessage('a@x.test', first._id);
		expect(await sql.rows('SELECT checksum FROM attachment_contents')).toEqual([{ checksum: 'shared' }]);
		await store.deletion.deleteMessage('b@x.test', second._id);
		expect(await sql.count('attachment_contents')).toBe(0);
	});

	it('deleteInbox keeps starred messages; deleteDomain removes everything of the domain; deleteBySeq what it names', async () => {
		const [kept] = await store.messages.insert(mailTo(['a@x.test']));
		await store.messages.insert(mailTo(['a@x.test']));
		await store.messages.insert(mailTo(['a@y.test']));
		await store.messageState.setStar('a@x.test', kept._id, 'acct', true);
		expect(await store.deletion.deleteInbox('a@x.test')).toBe(1);
		expect(idsIn(await store.messages.listInboxJson('a@x.test', 10))).toEqual([kept._id]);
		expect(await store.deletion.deleteDomain('x.test')).toBe(1);
		expect(await counts()).toEqual([1, 1, 0, 0]);
		const seqs = (await sql.rows<{ seq: string }>('SELECT seq FROM messages')).map((row) => Number(row.seq));
		expect(await store.deletion.deleteBySeq([])).toBe(0);
		expect(await store.deletion.deleteBySeq([...seqs, 999_999])).toBe(1);
		expect(await counts()).toEqual([0, 0, 0, 0]);
	});

	it('leaves no content behind when two nodes delete the last two records of a message at once', async () => {
		const second = await openPostgresStore(url, { node: 'node-b', role: 'admin' });
		try {
			for (let round = 0; round < 10; round++) {
				const shared = attachment('both', 'bytes');
				const [a, b] = await store.messages.insert(mailTo(['a@x.test', 'b@x.test'], { attachments: [shared] }));
				const [c] = await store.messages.insert(mailTo(['c@x.test'], { attachments: [shared] }));
				await Promise.all([
					store.deletion.deleteMessage('a@x.test', a._id),
					second.deletion.deleteMessage('b@x.test', b._id),
					(round % 2 ? store : second).deletion.deleteMessage('c@x.test', c._id),
				]);
				expect(await counts()).toEqual([0, 0, 0, 0]);
			}
		} finally {
			await second.close();
		}
	});

	it('hands the retention sweep the oldest messages in order, the overfull inboxes and what lies beyond their limit', async () => {
		const at = Date.UTC(2026, 3, 1);
		const records = [];
		for (let i = 0; i < 5; i++) records.push((await store.messages.insert(mailTo(['full@x.test'], {}, new Date(at + i))))[0]);
		await store.messages.insert(mailTo(['light@x.test'], {}, new Date(at)));
		await store.messageState.setStar('full@x.test', records[1]._id, 'acct', true);

		const oldest = await store.retentionCandidates.oldest(0, 3);
		expect(oldest.map((message) => message.received)).toEqual([at, at + 1, at + 2]);
		expect(oldest[1].savedBy).toBe('acct');
		const rest = await store.retentionCandidates.oldest(oldest[2].seq, 10);
		expect(rest.map((message) => message.received)).toEqual([at + 3, at + 4, at]);

		expect(await store.retentionCandidates.inboxesOver(1)).toEqual(['full@x.test']);
		expect(await store.retentionCandidates.inboxesOver(5)).toEqual([]);
		// Unstarred, newest first: records 4, 3, 2 and 0 (1 is starred); beyond the newest 2 of them, 2 and 0.
		const seqOf = async (id: string) => Number(await sql.value('SELECT seq FROM messages WHERE id = $1', [id]));
		expect(await store.retentionCandidates.beyond('full@x.test', 2, 10)).toEqual([
			await seqOf(records[2]._id),
			await seqOf(records[0]._id),
		]);
		expect(await store.retentionCandidates.beyond('full@x.test', 1, 1)).toEqual([await seqOf(records[3]._id)]);
	});
});
