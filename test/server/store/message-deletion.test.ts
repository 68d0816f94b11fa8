import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { rmSync } from 'node:fs';
import { openDatabase, type Db } from 'mailroom-server/dist/store/database';
import { MessageStore } from 'mailroom-server/dist/store/messages';
import { type ParsedIncomingMail } from 'mailroom-server/dist/mail/incoming-mail';
import { MessageDeletion } from 'mailroom-server/dist/store/message-deletion';
import type { ParsedAttachment, ParsedMail } from 'mailroom-server/dist/mail/parsed-mail';
import { countRows, onlyMessage } from '../../helpers/inboxes';
import { largeBodies, largeHtmlOnly, sendLarge } from '../../helpers/large-messages';
import { sendRawTo } from '../../helpers/messages';
import { startTestMailroom, tempDataDir, type TestMailroom } from '../../helpers/mailroom';

function attachment(checksum: string, body: string): ParsedAttachment {
	const content = Buffer.from(body);
	return {
		checksum,
		contentType: 'text/plain',
		fileName: `${checksum}.txt`,
		length: content.length,
		contentId: null,
		contentDisposition: 'attachment',
		transferEncoding: 'base64',
		content,
	};
}

function delivery(inboxes: string[], attachments: ParsedAttachment[] = []): ParsedIncomingMail {
	const parsed: ParsedMail = {
		subject: 's',
		from: [{ address: 'a@x.test', name: '' }],
		to: [],
		cc: null,
		bcc: null,
		messageId: '<m@x>',
		date: null,
		priority: 'normal',
		headers: [],
		text: 't',
		html: null,
		links: [],
		spam: 0,
		attachments,
	};
	return {
		raw: Buffer.from('raw'),
		parsed,
		ip: '127.0.0.1',
		via: '127.0.0.1',
		rtls: false,
		received: new Date(),
		recipients: inboxes.map((inbox) => ({ inbox, originalInbox: inbox, domain: inbox.split('@')[1] })),
	};
}

describe('MessageDeletion', () => {
	let dir: string;
	let db: Db;
	let store: MessageStore;
	let deletion: MessageDeletion;
	const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

	beforeEach(() => {
		dir = tempDataDir();
		db = openDatabase(dir);
		store = new MessageStore(db);
		deletion = new MessageDeletion(db);
	});
	afterEach(() => {
		db.close();
		rmSync(dir, { recursive: true, force: true });
	});

	it('keeps shared content until the last recipient record goes', () => {
		const [a, b] = store.insert(delivery(['a@x.test', 'b@x.test'], [attachment('c1', 'one')]));
		expect(deletion.deleteMessage('a@x.test', a._id)).toBe(true);
		expect(count('contents')).toBe(1);
		expect(store.content('b@x.test', b._id)?.raw()).toEqual(Buffer.from('raw'));
		expect(deletion.deleteMessage('a@x.test', a._id)).toBe(false);
		expect(deletion.deleteMessage('a@x.test', b._id)).toBe(false); // wrong inbox
		expect(deletion.deleteMessage('b@x.test', b._id)).toBe(true);
		expect([count('messages'), count('contents'), count('content_attachments'), count('attachment_contents')]).toEqual([0, 0, 0, 0]);
	});

	it('keeps attachment bytes shared by other messages until the last one goes', () => {
		const [first] = store.insert(delivery(['a@x.test'], [attachment('shared', 'same'), attachment('own', 'mine')]));
		const [second] = store.insert(delivery(['b@x.test'], [attachment('shared', 'same')]));
		deletion.deleteMessage('a@x.test', first._id);
		expect(db.prepare('SELECT checksum FROM attachment_contents').pluck().all()).toEqual(['shared']);
		deletion.deleteMessage('b@x.test', second._id);
		expect(count('attachment_contents')).toBe(0);
	});

	it('deleteInbox keeps starred messages; deleteDomain removes everything of the domain', () => {
		const [kept] = store.insert(delivery(['a@x.test']));
		store.insert(delivery(['a@x.test']));
		store.insert(delivery(['a@y.test']));
		db.prepare('UPDATE messages SET saved_by = ? WHERE id = ?').run('acct', kept._id);
		expect(deletion.deleteInbox('a@x.test')).toBe(1);
		expect((JSON.parse(store.listInboxJson('a@x.test', 10)) as { _id: string }[]).map((m) => m._id)).toEqual([kept._id]);
		expect(deletion.deleteDomain('x.test')).toBe(1);
		expect(count('messages')).toBe(1);
		expect(count('contents')).toBe(1);
	});
});

describe('MessageDeletion of large (spooled) messages', () => {
	let spooling: TestMailroom;
	beforeAll(async () => {
		spooling = await startTestMailroom({ spoolThreshold: 64 * 1024 });
	});
	afterAll(() => spooling.stop());

	it('deleting the message deletes its pieces', async () => {
		const remove = async (inbox: string) => {
			const { _id } = await onlyMessage(spooling, inbox);
			expect((await spooling.api(`/api/addresses/${inbox}/messages/${_id}`, { method: 'DELETE' })).status).toBe(200);
		};
		// Two other messages with the same attachments, and messages with large bodies.
		await sendLarge(spooling, 'big@spool.test');
		await sendLarge(spooling, 'ranges@spool.test');
		for (const [inbox, raw] of Object.entries(await largeBodies())) await sendRawTo(spooling, inbox, raw);
		await sendRawTo(spooling, 'html@bodies.test', await largeHtmlOnly(), 'html@sender.test');

		await sendLarge(spooling, 'gone@spool.test');
		const pieces = countRows(spooling, 'content_raw_pieces');
		await remove('gone@spool.test');
		expect(countRows(spooling, 'content_raw_pieces')).toBeLessThan(pieces);
		// The attachments are still the other messages'.
		expect(countRows(spooling, 'attachment_pieces')).toBe(4);
		await remove('big@spool.test');
		await remove('ranges@spool.test');
		expect(countRows(spooling, 'content_body_pieces')).toBeGreaterThan(0);
		for (const inbox of ['text', 'both', 'nested', 'latin', 'html']) await remove(`${inbox}@bodies.test`);
		expect(countRows(spooling, 'content_body_pieces')).toBe(0);
		expect(countRows(spooling, 'content_raw_pieces')).toBe(0);
		expect(countRows(spooling, 'attachment_pieces')).toBe(0);
		expect(countRows(spooling, 'attachment_contents')).toBe(0);
	});
});
