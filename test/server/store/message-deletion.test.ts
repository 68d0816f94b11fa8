import { describe, expect, it } from '@jest/globals';
import { PIECE_SIZE } from 'mailroom-server/dist/store/pieces';
import { countRows } from '../../helpers/inboxes';
import { largeBodies, largeHtmlOnly, largeRaw } from '../../helpers/large-messages';
import { ENGINES, attachment, idsIn, insert, mailTo, spooledMail, storePerTest } from '../../helpers/stores';
import { queryColumn } from '../../helpers/database';

/** The tables of a message, and of its content and attachments, with how many rows each holds. */
const MESSAGE_TABLES = ['messages', 'contents', 'content_attachments', 'attachment_contents'];
/** The tables of what a large message keeps in pieces. */
const PIECE_TABLES = ['content_raw_pieces', 'content_body_pieces', 'attachment_pieces'];

describe.each(ENGINES)('MessageDeletion (%s)', (engine) => {
	const current = storePerTest(engine);
	const counts = (tables = MESSAGE_TABLES) => Promise.all(tables.map((table) => countRows(current(), table)));

	it('keeps shared content until the last recipient record goes', async () => {
		const { messages, deletion } = current();
		const [a, b] = await insert(current(), mailTo(['a@x.test', 'b@x.test'], { attachments: [attachment('c1', 'one')] }));
		expect(await deletion.deleteMessage('a@x.test', a._id)).toBe(true);
		expect(await countRows(current(), 'contents')).toBe(1);
		expect(await (await messages.content('b@x.test', b._id))?.raw()).toEqual(Buffer.from('raw'));
		expect(await deletion.deleteMessage('a@x.test', a._id)).toBe(false);
		expect(await deletion.deleteMessage('a@x.test', b._id)).toBe(false); // wrong inbox
		expect(await deletion.deleteMessage('b@x.test', b._id)).toBe(true);
		expect(await counts()).toEqual([0, 0, 0, 0]);
	});

	it('keeps attachment bytes shared by other messages until the last one goes', async () => {
		const { deletion } = current();
		const [first] = await insert(
			current(),
			mailTo(['a@x.test'], { attachments: [attachment('shared', 'same'), attachment('own', 'mine')] }),
		);
		const [second] = await insert(current(), mailTo(['b@x.test'], { attachments: [attachment('shared', 'same')] }));
		await deletion.deleteMessage('a@x.test', first._id);
		expect(await queryColumn(current(), 'SELECT checksum FROM attachment_contents')).toEqual(['shared']);
		await deletion.deleteMessage('b@x.test', second._id);
		expect(await countRows(current(), 'attachment_contents')).toBe(0);
	});

	it('deleteInbox keeps starred messages; deleteDomain removes everything of the domain; deleteBySeq what it names', async () => {
		const { messages, deletion, messageState } = current();
		const [kept] = await insert(current(), mailTo(['a@x.test']));
		await insert(current(), mailTo(['a@x.test']));
		await insert(current(), mailTo(['a@y.test']));
		await messageState.setStar('a@x.test', kept._id, 'acct', true);
		expect(await deletion.deleteInbox('a@x.test')).toBe(1);
		expect(idsIn(await messages.listInboxJson('a@x.test', 10))).toEqual([kept._id]);
		expect(await deletion.deleteDomain('x.test')).toBe(1);
		expect(await counts()).toEqual([1, 1, 0, 0]);
		const seqs = await queryColumn<number>(current(), 'SELECT seq FROM messages');
		expect(await deletion.deleteBySeq([])).toBe(0);
		expect(await deletion.deleteBySeq([...seqs, 999_999])).toBe(1);
		expect(await counts()).toEqual([0, 0, 0, 0]);
	});

	it('deletes the pieces of a large message with it, and attachment pieces with the last message that has them', async () => {
		const store = current();
		const raw = await largeRaw();
		// The same message arrives twice: parsed once (from its spool files, which storing only reads), stored for each inbox.
		const mail = await spooledMail(store, raw, 'first@spool.test');
		const [first] = await insert(store, mail);
		const [second] = await insert(store, { ...mail, recipients: mailTo(['second@spool.test']).recipients });
		expect(await store.deletion.deleteMessage('first@spool.test', first._id)).toBe(true);
		expect(await countRows(store, 'content_raw_pieces')).toBe(Math.ceil(raw.length / PIECE_SIZE));
		// The attachments are still the other message's (big.bin and twice.bin are one file of 3 pieces, pic.png 1).
		expect(await countRows(store, 'attachment_pieces')).toBe(4);
		expect(await store.deletion.deleteMessage('second@spool.test', second._id)).toBe(true);
		expect(await counts([...MESSAGE_TABLES, ...PIECE_TABLES])).toEqual([0, 0, 0, 0, 0, 0, 0]);
	}, 60_000);

	it('deletes the pieces of large text and HTML bodies with their message', async () => {
		const store = current();
		const bodies = { ...(await largeBodies()), 'html@bodies.test': await largeHtmlOnly() };
		for (const [inbox, raw] of Object.entries(bodies)) await insert(store, await spooledMail(store, raw, inbox));
		expect(await countRows(store, 'content_body_pieces')).toBeGreaterThan(0);
		for (const inbox of Object.keys(bodies)) expect(await store.deletion.deleteInbox(inbox)).toBe(1);
		expect(await counts([...MESSAGE_TABLES, ...PIECE_TABLES])).toEqual([0, 0, 0, 0, 0, 0, 0]);
	}, 90_000);
});
