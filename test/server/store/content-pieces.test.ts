import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { AttachmentMeta } from 'mailroom-server/dist/schemas/message';
import { countRows, onlyMessage } from '../../helpers/inboxes';
import { bigFile, LARGE_ATTACHMENTS, largeBodies, sendLarge, served } from '../../helpers/large-messages';
import { omit, sendRawTo } from '../../helpers/messages';
import { spoolEntries } from '../../helpers/spool';
import { SpoolingPair } from '../../helpers/spooling-pair';
import { query, queryValue } from '../../helpers/database';

/**
 * Large (spooled) messages are stored in pieces of 1 MB: their raw source, their attachments (each once however many
 * messages have it) and their large text and HTML bodies. What the API serves of them must be what it serves of the
 * same message kept in memory.
 */
describe('large messages (spooled), stored in pieces', () => {
	let pair: SpoolingPair;
	beforeEach(async () => {
		pair = await SpoolingPair.start();
	});
	afterEach(() => pair.stop());

	it('are served byte for byte as the same message kept in memory, from pieces in the database', async () => {
		const { spooling, inMemory } = pair;
		await sendLarge(spooling, 'big@spool.test');
		await sendLarge(inMemory, 'big@spool.test');
		const spooled = await onlyMessage(spooling, 'big@spool.test');
		const kept = await onlyMessage(inMemory, 'big@spool.test');
		expect(spooled.size).toBeGreaterThan(4 * 1024 * 1024);

		const fromSpool = await served(spooling, 'big@spool.test', spooled._id);
		const fromMemory = await served(inMemory, 'big@spool.test', kept._id);
		expect(omit(fromSpool.record, '_id', 'received')).toEqual(omit(fromMemory.record, '_id', 'received'));
		expect(fromSpool.text).toBe(fromMemory.text);
		expect(fromSpool.headers).toEqual(fromMemory.headers);
		expect(fromSpool.dirty).toBe(fromMemory.dirty);
		expect(fromSpool.raw.equals(fromMemory.raw)).toBe(true);
		expect(fromSpool.raw.length).toBe(spooled.size);
		// Streamed from its pieces, with its length announced as for any other message.
		const rawResponse = await fetch(`${spooling.httpUrl}/api/raw/big@spool.test/${spooled._id}?download=1`);
		expect(rawResponse.headers.get('content-length')).toBe(String(spooled.size));
		expect(rawResponse.headers.get('content-type')).toBe('message/rfc822');
		expect(rawResponse.headers.get('content-disposition')).toBe(`attachment; filename="${spooled._id}.eml"`);
		expect(Buffer.from(await rawResponse.arrayBuffer()).equals(fromMemory.raw)).toBe(true);
		expect(fromSpool.attachments).toEqual(fromMemory.attachments);
		expect(fromSpool.attachments.map((a) => a.fileName).sort()).toEqual(Object.keys(LARGE_ATTACHMENTS));
		fromSpool.attachments.forEach((a, i) => expect(fromSpool.attachmentBytes[i].equals(LARGE_ATTACHMENTS[a.fileName!])).toBe(true));

		// Stored in pieces (the same file twice only once), nothing left in the spool folder.
		expect(await queryValue(spooling, 'SELECT length(raw) FROM contents ORDER BY id DESC LIMIT 1')).toBe(0);
		expect(await countRows(spooling, 'content_raw_pieces')).toBe(Math.ceil(spooled.size / (1024 * 1024)));
		expect(await countRows(spooling, 'attachment_pieces')).toBe(3 + 1);
		expect(await countRows(inMemory, 'content_raw_pieces')).toBe(0);
		expect(spoolEntries(spooling)).toEqual([]);
	});

	it('keep large text and HTML bodies in pieces, and serve them as the same messages kept in memory', async () => {
		const { spooling, inMemory } = pair;
		for (const [inbox, raw] of Object.entries(await largeBodies())) {
			await sendRawTo(spooling, inbox, raw);
			await sendRawTo(inMemory, inbox, raw);
			const spooled = await onlyMessage(spooling, inbox);
			const kept = await onlyMessage(inMemory, inbox);
			const fromSpool = await served(spooling, inbox, spooled._id);
			const fromMemory = await served(inMemory, inbox, kept._id);
			expect(omit(fromSpool.record, '_id', 'received')).toEqual(omit(fromMemory.record, '_id', 'received'));
			expect(fromSpool.text.length).toBeGreaterThan(1024 * 1024);
			expect(fromSpool.text).toBe(fromMemory.text);
			expect(fromSpool.dirty).toBe(fromMemory.dirty);
		}
		expect(
			await query(spooling, 'SELECT kind, count(DISTINCT content_id) AS contents FROM content_body_pieces GROUP BY kind ORDER BY kind'),
		).toEqual([
			{ kind: 'html', contents: 1 },
			{ kind: 'text', contents: 4 },
		]);
		expect(await queryValue(spooling, "SELECT count(*) FROM contents WHERE text = ''")).toBe(4);
		expect(await countRows(inMemory, 'content_body_pieces')).toBe(0);
		expect(spoolEntries(spooling)).toEqual([]);
	}, 90_000);

	it('reads any range of a pieced attachment across piece boundaries', async () => {
		const { spooling } = pair;
		await sendLarge(spooling, 'ranges@spool.test');
		const { _id } = await onlyMessage(spooling, 'ranges@spool.test');
		const list = (await spooling.api<AttachmentMeta[]>(`/api/addresses/ranges@spool.test/messages/${_id}/attachments`)).body;
		const { checksum } = list.find((a) => a.fileName === 'big.bin')!;
		const { attachments } = spooling.store;
		for (const [offset, length] of [
			[0, 10],
			[1024 * 1024 - 5, 10],
			[1024 * 1024, 3 * 1024 * 1024],
			[3 * 1024 * 1024 - 1, 100],
		]) {
			expect((await attachments.read(checksum, offset, length)).equals(bigFile.subarray(offset, offset + length))).toBe(true);
		}
	});
});
