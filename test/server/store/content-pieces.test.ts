import { describe, expect, it } from '@jest/globals';
import type { ParsedIncomingMail } from 'mailroom-server/dist/mail/incoming-mail';
import { DeletedWhileReadError, storedPieces, type PiecedBytes, type StoredBytes } from 'mailroom-server/dist/bytes/stored-bytes';
import { PIECE_SIZE } from 'mailroom-server/dist/store/pieces';
import { countRows } from '../../helpers/inboxes';
import { LARGE_ATTACHMENTS, bigFile, largeBodies, largeBody, largeRaw } from '../../helpers/large-messages';
import { omit } from '../../helpers/messages';
import { ENGINES, inMemoryMail, insert, spooledMail, storePerTest } from '../../helpers/stores';
import { query, queryValue } from '../../helpers/database';

/** Every piece of stored bytes, read as a reader of the API does: one at a time. */
async function whole(bytes: StoredBytes): Promise<Buffer> {
	const pieces: Buffer[] = [];
	for await (const piece of storedPieces(bytes)) pieces.push(Buffer.from(piece));
	return Buffer.concat(pieces);
}

/**
 * Large (spooled) messages are stored in pieces of 1 MB, copied in from their spool files: their raw source, their
 * attachments (each once however many messages have it) and their large text and HTML bodies. What is read back must be
 * what the same message kept in memory gives.
 */
describe.each(ENGINES)('large messages (spooled), stored in pieces (%s)', (engine) => {
	const current = storePerTest(engine);
	const storeOne = async (mail: ParsedIncomingMail) => (await insert(current(), mail))[0];

	it('stores the raw source and attachments in pieces, and reads them back as the same message kept in memory', async () => {
		const { messages, attachments } = current();
		const raw = await largeRaw();
		const record = await storeOne(await spooledMail(current(), raw, 'big@spool.test'));
		const kept = await storeOne(await inMemoryMail(raw, 'kept@memory.test'));
		expect(omit(record, '_id', 'received', 'inbox', 'originalInbox', 'domain')).toEqual(
			omit(kept, '_id', 'received', 'inbox', 'originalInbox', 'domain'),
		);

		const source = (await messages.rawSource('big@spool.test', record._id)) as PiecedBytes;
		expect(Buffer.isBuffer(source)).toBe(false);
		expect(source.length).toBe(raw.length);
		expect((await source.piece(0))?.length).toBe(PIECE_SIZE);
		expect(await source.piece(Math.ceil(raw.length / PIECE_SIZE))).toBeUndefined();
		expect((await whole(source)).equals(raw)).toBe(true);
		expect((await whole(await (await messages.content('big@spool.test', record._id))!.raw())).equals(raw)).toBe(true);
		// Only the spooled message is kept in pieces.
		expect(await queryValue(current(), 'SELECT length(raw) FROM contents ORDER BY id LIMIT 1')).toBe(0);
		expect(await countRows(current(), 'content_raw_pieces')).toBe(Math.ceil(raw.length / PIECE_SIZE));

		const content = (await messages.content('big@spool.test', record._id))!;
		const memory = (await messages.content('kept@memory.test', kept._id))!;
		expect(await content.text()).toBe(await memory.text());
		expect(await content.html()).toBe(await memory.html());
		expect(content.headers).toEqual(memory.headers);
		const stored = await content.attachments();
		expect(stored).toEqual(await memory.attachments());
		expect(stored.map((a) => a.fileName).sort()).toEqual(Object.keys(LARGE_ATTACHMENTS).sort());
		for (const file of stored) {
			expect((await attachments.read(file.checksum, 0, file.length)).equals(LARGE_ATTACHMENTS[file.fileName!])).toBe(true);
		}
		// The same file twice is stored once, in pieces (big.bin and twice.bin: 3 pieces, pic.png: 1).
		expect(await countRows(current(), 'attachment_pieces')).toBe(3 + 1);

		const { checksum } = stored.find((a) => a.fileName === 'big.bin')!;
		for (const [offset, length] of [
			[0, 10],
			[PIECE_SIZE - 5, 10],
			[PIECE_SIZE, 3 * PIECE_SIZE],
			[3 * PIECE_SIZE - 1, 100],
		]) {
			expect((await attachments.read(checksum, offset, length)).equals(bigFile.subarray(offset, offset + length))).toBe(true);
		}
		expect(await attachments.read(checksum, bigFile.length + 10, 10)).toEqual(Buffer.alloc(0));
	}, 60_000);

	it('keeps large text and HTML bodies in pieces, read back as the same messages kept in memory', async () => {
		const { messages } = current();
		for (const [inbox, raw] of Object.entries(await largeBodies())) {
			const record = await storeOne(await spooledMail(current(), raw, inbox));
			const kept = await storeOne(await inMemoryMail(raw, `memory-${inbox}`));
			// Without their threadId: a message without Message-ID (latin@bodies.test) starts a thread of its own.
			expect(omit(record, '_id', 'received', 'inbox', 'originalInbox', 'domain', 'threadId')).toEqual(
				omit(kept, '_id', 'received', 'inbox', 'originalInbox', 'domain', 'threadId'),
			);
			const content = (await messages.content(inbox, record._id))!;
			const memory = (await messages.content(`memory-${inbox}`, kept._id))!;
			const [text, textInMemory] = [await content.text(), await memory.text()];
			expect(Buffer.isBuffer(await content.textBytes())).toBe(false);
			expect(text.length).toBeGreaterThan(PIECE_SIZE);
			expect(text).toBe(textInMemory);
			expect(await content.html()).toBe(await memory.html());
			expect((await whole(await content.textBytes())).toString()).toBe(textInMemory);
		}
		expect(
			await query(current(), 'SELECT kind, count(DISTINCT content_id) AS n FROM content_body_pieces GROUP BY kind ORDER BY kind'),
		).toEqual([
			{ kind: 'html', n: 1 },
			{ kind: 'text', n: 4 },
		]);
		// The texts kept in pieces leave their column empty; those kept in memory do not.
		expect(await queryValue(current(), 'SELECT count(*) FROM contents WHERE length(text) = 0')).toBe(4);
	}, 180_000); // eight large messages parsed and stored: over a minute on PostgreSQL on a busy machine

	it('ends a read short, never passing for the whole, when the message is deleted while its pieces are read', async () => {
		// Its raw source in three pieces: one to read before it goes, more to read after.
		const raw = await largeBody('latin@bodies.test');
		expect(raw.length).toBeGreaterThan(2 * PIECE_SIZE);
		const record = await storeOne(await spooledMail(current(), raw, 'cut@spool.test'));
		const reading = storedPieces((await current().messages.rawSource('cut@spool.test', record._id))!);
		expect((await reading.next()).value).toHaveLength(PIECE_SIZE);
		await current().deletion.deleteMessage('cut@spool.test', record._id);
		await expect(reading.next()).rejects.toThrow(DeletedWhileReadError);
	}, 60_000);
});
