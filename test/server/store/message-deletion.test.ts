import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ParsedIncomingMail } from 'mailroom-server/dist/mail/incoming-mail';
import type { ParsedAttachment, ParsedMail } from 'mailroom-server/dist/mail/parsed-mail';
import { countRows, onlyMessage } from '../../helpers/inboxes';
import { largeBodies, largeHtmlOnly, sendLarge } from '../../helpers/large-messages';
import { sendRawTo } from '../../helpers/messages';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { ENGINES, insert, storePerTest } from '../../helpers/stores';
import { queryColumn, queryValue } from '../../helpers/database';

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

describe.each(ENGINES)('MessageDeletion (%s)', (engine) => {
	const current = storePerTest(engine);
	const count = (table: string) => queryValue(current(), `SELECT count(*) FROM ${table}`);

	it('keeps shared content until the last recipient record goes', async () => {
		const { messages, deletion } = current();
		const [a, b] = await insert(current(), delivery(['a@x.test', 'b@x.test'], [attachment('c1', 'one')]));
		expect(await deletion.deleteMessage('a@x.test', a._id)).toBe(true);
		expect(await count('contents')).toBe(1);
		expect(await (await messages.content('b@x.test', b._id))?.raw()).toEqual(Buffer.from('raw'));
		expect(await deletion.deleteMessage('a@x.test', a._id)).toBe(false);
		expect(await deletion.deleteMessage('a@x.test', b._id)).toBe(false); // wrong inbox
		expect(await deletion.deleteMessage('b@x.test', b._id)).toBe(true);
		for (const table of ['messages', 'contents', 'content_attachments', 'attachment_contents']) expect(await count(table)).toBe(0);
	});

	it('keeps attachment bytes shared by other messages until the last one goes', async () => {
		const { deletion } = current();
		const [first] = await insert(current(), delivery(['a@x.test'], [attachment('shared', 'same'), attachment('own', 'mine')]));
		const [second] = await insert(current(), delivery(['b@x.test'], [attachment('shared', 'same')]));
		await deletion.deleteMessage('a@x.test', first._id);
		expect(await queryColumn(current(), 'SELECT checksum FROM attachment_contents')).toEqual(['shared']);
		await deletion.deleteMessage('b@x.test', second._id);
		expect(await count('attachment_contents')).toBe(0);
	});

	it('deleteInbox keeps starred messages; deleteDomain removes everything of the domain', async () => {
		const { messages, deletion, messageState } = current();
		const [kept] = await insert(current(), delivery(['a@x.test']));
		await insert(current(), delivery(['a@x.test']));
		await insert(current(), delivery(['a@y.test']));
		await messageState.setStar('a@x.test', kept._id, 'acct', true);
		expect(await deletion.deleteInbox('a@x.test')).toBe(1);
		expect((JSON.parse(await messages.listInboxJson('a@x.test', 10)) as { _id: string }[]).map((m) => m._id)).toEqual([kept._id]);
		expect(await deletion.deleteDomain('x.test')).toBe(1);
		expect(await count('messages')).toBe(1);
		expect(await count('contents')).toBe(1);
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
		const pieces = await countRows(spooling, 'content_raw_pieces');
		await remove('gone@spool.test');
		expect(await countRows(spooling, 'content_raw_pieces')).toBeLessThan(pieces);
		// The attachments are still the other messages'.
		expect(await countRows(spooling, 'attachment_pieces')).toBe(4);
		await remove('big@spool.test');
		await remove('ranges@spool.test');
		expect(await countRows(spooling, 'content_body_pieces')).toBeGreaterThan(0);
		for (const inbox of ['text', 'both', 'nested', 'latin', 'html']) await remove(`${inbox}@bodies.test`);
		expect(await countRows(spooling, 'content_body_pieces')).toBe(0);
		expect(await countRows(spooling, 'content_raw_pieces')).toBe(0);
		expect(await countRows(spooling, 'attachment_pieces')).toBe(0);
		expect(await countRows(spooling, 'attachment_contents')).toBe(0);
	});
});
