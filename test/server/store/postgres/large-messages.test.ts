import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ParsedIncomingMail } from 'mailroom-server/dist/mail/incoming-mail';
import { parseMessage } from 'mailroom-server/dist/parse/parse-message';
import { parseSpooled } from 'mailroom-server/dist/parse/parse-spooled';
import { DeletedWhileReadError, storedPieces, type PiecedBytes, type StoredBytes } from 'mailroom-server/dist/bytes/stored-bytes';
import { PIECE_SIZE } from 'mailroom-server/dist/store/pieces';
import type { Store } from 'mailroom-server/dist/store/store';
import { LARGE_ATTACHMENTS, bigFile, largeBodies, largeRaw } from '../../../helpers/large-messages';
import { omit } from '../../../helpers/messages';
import { startPostgres, type TestPostgres } from '../../../helpers/postgres';
import { Sql, freshStore, mailTo } from './fixtures';

/** Every piece of stored bytes, read as a reader of the API does: one at a time. */
async function whole(bytes: StoredBytes): Promise<Buffer> {
	const pieces: Buffer[] = [];
	for await (const piece of storedPieces(bytes)) pieces.push(Buffer.from(piece));
	return Buffer.concat(pieces);
}

/**
 * Large (spooled) messages are stored in pieces of 1 MB, copied in from their spool files: their raw source, their
 * attachments (each once however many messages have it) and their large bodies. What is read back must be what the same
 * message kept in memory gives.
 */
describe('PostgreSQL store: large messages, stored in pieces', () => {
	let postgres: TestPostgres;
	let store: Store;
	let sql: Sql;
	let spool: string;
	let spooled = 0;
	beforeAll(async () => {
		postgres = await startPostgres();
		const fresh = await freshStore(postgres);
		store = fresh.store;
		sql = await Sql.on(fresh.url);
		spool = mkdtempSync(join(tmpdir(), 'mailroom-pg-spool-'));
	});
	afterAll(async () => {
		await sql.close();
		await store.close();
		await postgres.stop();
		rmSync(spool, { recursive: true, force: true });
	});
	beforeEach(async () => {
		await sql.rows('TRUNCATE messages, messages_search, contents, content_attachments, attachment_contents CASCADE');
	});

	/** `raw` spooled to a file and parsed from there, as the SMTP listener and a parser thread do with a large message. */
	async function spooledMail(raw: Buffer, inbox: string): Promise<ParsedIncomingMail> {
		const folder = join(spool, String(++spooled));
		mkdirSync(folder);
		const message = { spoolPath: join(folder, 'message'), byteLength: raw.length };
		writeFileSync(message.spoolPath, raw);
		return { ...mailTo([inbox]), raw: message, parsed: await parseSpooled(message) };
	}

	const inMemory = async (raw: Buffer, inbox: string): Promise<ParsedIncomingMail> => ({
		...mailTo([inbox]),
		raw,
		parsed: await parseMessage(raw),
	});

	const store1 = (mail: ParsedIncomingMail) => store.transaction(async (parts) => (await parts.messages.insert(mail))[0]);

	it('stores the raw source and attachments in pieces, and serves them as the same message kept in memory', async () => {
		const raw = await largeRaw();
		const record = await store1(await spooledMail(raw, 'big@spool.test'));
		const kept = await store1(await inMemory(raw, 'kept@memory.test'));
		expect(omit(record, '_id', 'received', 'inbox', 'originalInbox', 'domain')).toEqual(
			omit(kept, '_id', 'received', 'inbox', 'originalInbox', 'domain'),
		);

		const source = (await store.messages.rawSource('big@spool.test', record._id)) as PiecedBytes;
		expect(Buffer.isBuffer(source)).toBe(false);
		expect(source.length).toBe(raw.length);
		expect((await source.piece(0))?.length).toBe(PIECE_SIZE);
		expect(await source.piece(Math.ceil(raw.length / PIECE_SIZE))).toBeUndefined();
		expect((await whole(source)).equals(raw)).toBe(true);
		expect((await whole(await (await store.messages.content('big@spool.test', record._id))!.raw())).equals(raw)).toBe(true);
		expect(await sql.value('SELECT octet_length(raw) FROM contents ORDER BY id LIMIT 1')).toBe(0);
		expect(await sql.count('content_raw_pieces')).toBe(Math.ceil(raw.length / PIECE_SIZE));

		const content = (await store.messages.content('big@spool.test', record._id))!;
		const memory = (await store.messages.content('kept@memory.test', kept._id))!;
		expect(await content.text()).toBe(await memory.text());
		expect(await content.html()).toBe(await memory.html());
		expect(content.headers).toEqual(memory.headers);
		const attachments = await content.attachments();
		expect(attachments).toEqual(await memory.attachments());
		expect(attachments.map((a) => a.fileName).sort()).toEqual(Object.keys(LARGE_ATTACHMENTS).sort());
		// The same file twice is stored once, in pieces (big.bin and twice.bin: 3 pieces, pic.png: 1).
		expect(await sql.count('attachment_pieces')).toBe(3 + 1);

		const { checksum } = attachments.find((a) => a.fileName === 'big.bin')!;
		for (const [offset, length] of [
			[0, 10],
			[PIECE_SIZE - 5, 10],
			[PIECE_SIZE, 3 * PIECE_SIZE],
			[3 * PIECE_SIZE - 1, 100],
		]) {
			expect((await store.attachments.read(checksum, offset, length)).equals(bigFile.subarray(offset, offset + length))).toBe(true);
		}
		expect(await store.attachments.read(checksum, bigFile.length + 10, 10)).toEqual(Buffer.alloc(0));
	}, 60_000);

	it('keeps large text and HTML bodies in pieces, read back as the same messages kept in memory', async () => {
		for (const [inbox, raw] of Object.entries(await largeBodies())) {
			const record = await store1(await spooledMail(raw, inbox));
			const kept = await store1(await inMemory(raw, `memory-${inbox}`));
			const content = (await store.messages.content(inbox, record._id))!;
			const memory = (await store.messages.content(`memory-${inbox}`, kept._id))!;
			expect(Buffer.isBuffer(await content.textBytes())).toBe(false);
			expect((await content.text()).length).toBeGreaterThan(PIECE_SIZE);
			expect(await content.text()).toBe(await memory.text());
			expect(await content.html()).toBe(await memory.html());
			expect((await whole(await content.textBytes())).toString()).toBe(await memory.text());
		}
		expect(
			await sql.rows('SELECT kind, count(DISTINCT content_id)::int AS n FROM content_body_pieces GROUP BY kind ORDER BY kind'),
		).toEqual([
			{ kind: 'html', n: 1 },
			{ kind: 'text', n: 4 },
		]);
	}, 90_000);

	it('deletes the pieces with the message, and attachment pieces with the last message that has them', async () => {
		const raw = await largeRaw();
		const first = await store1(await spooledMail(raw, 'first@spool.test'));
		const second = await store1(await spooledMail(raw, 'second@spool.test'));
		expect(await store.deletion.deleteMessage('first@spool.test', first._id)).toBe(true);
		expect(await sql.count('content_raw_pieces')).toBe(Math.ceil(raw.length / PIECE_SIZE));
		expect(await sql.count('attachment_pieces')).toBe(4);
		expect(await store.deletion.deleteMessage('second@spool.test', second._id)).toBe(true);
		for (const table of ['contents', 'content_raw_pieces', 'attachment_contents', 'attachment_pieces', 'content_body_pieces']) {
			expect(await sql.count(table)).toBe(0);
		}
	}, 60_000);

	it('ends a read short, never passing for the whole, when the message is deleted while its pieces are read', async () => {
		const raw = await largeRaw();
		const record = await store1(await spooledMail(raw, 'cut@spool.test'));
		const source = (await store.messages.rawSource('cut@spool.test', record._id))!;
		const reading = storedPieces(source);
		expect((await reading.next()).value).toHaveLength(PIECE_SIZE);
		await store.deletion.deleteMessage('cut@spool.test', record._id);
		await expect(reading.next()).rejects.toThrow(DeletedWhileReadError);
	}, 60_000);
});
