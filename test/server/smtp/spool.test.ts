import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer';
import { AttachmentStore } from 'mailroom-server/dist/store/attachments';
import { MessageStore } from 'mailroom-server/dist/store/messages';
import { startTestMailroom, tempDataDir, type TestMailroom } from '../../helpers/mailroom';
import { waitFor } from '../../helpers/webhook-receiver';

/** A few MB: well past the lowered threshold, with attachments that are not text (base64 on the wire). */
const bigFile = randomBytes(3 * 1024 * 1024);
const image = randomBytes(200 * 1024);
const LARGE_MESSAGE = {
	from: '"Big Sender" <big@sender.test>',
	to: 'big@spool.test',
	subject: 'A large one',
	text: 'See https://example.org/large and the attachments.',
	html: '<p>See <a href="https://example.org/large">this</a> <img src="cid:pic@test"></p>',
	attachments: [
		{ filename: 'big.bin', content: bigFile },
		{ filename: 'pic.png', content: image, contentType: 'image/png', cid: 'pic@test' },
		{ filename: 'twice.bin', content: bigFile },
	],
};

/** The same bytes every time (nodemailer picks new boundaries and ids for each message it builds). */
let largeRaw: Buffer;
beforeAll(async () => {
	largeRaw = await new MailComposer(LARGE_MESSAGE).compile().build();
});
const sendLarge = (server: TestMailroom, to: string) => server.send({ envelope: { from: 'big@sender.test', to: [to] }, raw: largeRaw });

const countRows = (server: TestMailroom, table: string) => server.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;

async function onlyMessage(server: TestMailroom, inbox: string) {
	const list = await server.api(`/api/addresses/${inbox}/messages`);
	expect(list.body).toHaveLength(1);
	return list.body[0];
}

/** Everything the API serves of one message, as bytes or JSON. */
async function served(server: TestMailroom, inbox: string, id: string) {
	const get = async (path: string) => Buffer.from(await (await fetch(`${server.httpUrl}${path}`)).arrayBuffer());
	const attachments = (await server.api(`/api/addresses/${inbox}/messages/${id}/attachments`)).body as {
		checksum: string;
		fileName: string;
	}[];
	return {
		record: (await server.api(`/api/addresses/${inbox}/messages/${id}`)).body,
		text: (await server.api(`/api/text/${inbox}/${id}`)).text,
		headers: (await server.api(`/api/addresses/${inbox}/messages/${id}/headers`)).body,
		dirty: (await server.api(`/api/dirty/${inbox}/${id}`)).text,
		raw: await get(`/api/raw/${inbox}/${id}`),
		attachments,
		attachmentBytes: await Promise.all(attachments.map((a) => get(`/api/addresses/${inbox}/messages/${id}/attachments/${a.checksum}`))),
	};
}

describe('large messages (spooled)', () => {
	let spooling: TestMailroom;
	let inMemory: TestMailroom;
	beforeAll(async () => {
		spooling = await startTestMailroom({ spoolThreshold: 64 * 1024 });
		inMemory = await startTestMailroom({ spoolThreshold: 1024 * 1024 * 1024 });
	});
	afterAll(async () => {
		await spooling.stop();
		await inMemory.stop();
	});

	it('are served byte for byte as the same message kept in memory, from pieces in the database', async () => {
		await sendLarge(spooling, 'big@spool.test');
		await sendLarge(inMemory, 'big@spool.test');
		const spooled = await onlyMessage(spooling, 'big@spool.test');
		const kept = await onlyMessage(inMemory, 'big@spool.test');
		expect(spooled.size).toBeGreaterThan(4 * 1024 * 1024);

		const fromSpool = await served(spooling, 'big@spool.test', spooled._id);
		const fromMemory = await served(inMemory, 'big@spool.test', kept._id);
		const withoutIdentity = ({ _id, received, ...rest }: Record<string, unknown>) => rest; // eslint-disable-line @typescript-eslint/no-unused-vars
		expect(withoutIdentity(fromSpool.record)).toEqual(withoutIdentity(fromMemory.record));
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
		const files: Record<string, Buffer> = { 'big.bin': bigFile, 'pic.png': image, 'twice.bin': bigFile };
		expect(fromSpool.attachments.map((a) => a.fileName).sort()).toEqual(Object.keys(files));
		fromSpool.attachments.forEach((a, i) => expect(fromSpool.attachmentBytes[i].equals(files[a.fileName])).toBe(true));

		// Stored in pieces (the same file twice only once), nothing left in the spool folder.
		expect(spooling.db.prepare('SELECT length(raw) FROM contents ORDER BY id DESC LIMIT 1').pluck().get()).toBe(0);
		expect(countRows(spooling, 'content_raw_pieces')).toBe(Math.ceil(spooled.size / (1024 * 1024)));
		expect(countRows(spooling, 'attachment_pieces')).toBe(3 + 1);
		expect(countRows(inMemory, 'content_raw_pieces')).toBe(0);
		expect(readdirSync(join(spooling.config.dataDir, 'spool'))).toEqual([]);
	});

	it('keep large text and HTML bodies in pieces, and serve them as the same messages kept in memory', async () => {
		const line = (i: number) => `Line ${i}: café, €uro ✓ and https://example.test/${i % 50} in a longer sentence.\r\n`;
		const text = Array.from({ length: 40_000 }, (_, i) => line(i)).join('');
		const flowed = 'Caf=E9 au lait, tr=E8s bien, a line that flows on \r\nand on, with a soft =\r\nbreak.\r\n'.repeat(30_000);
		const build = (mail: ConstructorParameters<typeof MailComposer>[0]) =>
			new MailComposer({ from: 'bodies@sender.test', ...mail }).compile().build();
		const bodies: Record<string, Buffer> = {
			'text@bodies.test': await build({ subject: 'plain', text }),
			'both@bodies.test': await build({
				subject: 'both',
				text,
				html: `<div>${text.replace(/\r\n/g, '<br>')}</div>`,
				textEncoding: 'base64',
			}),
			'nested@bodies.test': await build({
				subject: 'with a message attached',
				text,
				html: '<p>short</p>',
				attachments: [
					{ contentType: 'message/rfc822', content: await build({ subject: 'inner', to: 'x@inner.test', text: `inner ${text}` }) },
				],
			}),
			'latin@bodies.test': Buffer.from(
				'From: bodies@sender.test\r\nSubject: latin\r\nContent-Type: text/plain; charset=iso-8859-1; format=flowed\r\n' +
					`Content-Transfer-Encoding: quoted-printable\r\n\r\n${flowed}`,
			),
		};
		for (const [inbox, raw] of Object.entries(bodies)) {
			const send = (server: TestMailroom) => server.send({ envelope: { from: 'bodies@sender.test', to: [inbox] }, raw });
			await send(spooling);
			await send(inMemory);
			const spooled = await onlyMessage(spooling, inbox);
			const kept = await onlyMessage(inMemory, inbox);
			const fromSpool = await served(spooling, inbox, spooled._id);
			const fromMemory = await served(inMemory, inbox, kept._id);
			const withoutIdentity = ({ _id, received, ...rest }: Record<string, unknown>) => rest; // eslint-disable-line @typescript-eslint/no-unused-vars
			expect(withoutIdentity(fromSpool.record)).toEqual(withoutIdentity(fromMemory.record));
			expect(fromSpool.text.length).toBeGreaterThan(1024 * 1024);
			expect(fromSpool.text).toBe(fromMemory.text);
			expect(fromSpool.dirty).toBe(fromMemory.dirty);
		}
		expect(
			spooling.db.prepare('SELECT kind, count(DISTINCT content_id) FROM content_body_pieces GROUP BY kind ORDER BY kind').raw().all(),
		).toEqual([
			['html', 1],
			['text', 4],
		]);
		expect(spooling.db.prepare("SELECT count(*) FROM contents WHERE text = ''").pluck().get()).toBe(4);
		expect(countRows(inMemory, 'content_body_pieces')).toBe(0);
		expect(readdirSync(join(spooling.config.dataDir, 'spool'))).toEqual([]);
	});

	it('turn a large HTML-only body into text a piece at a time', async () => {
		const paragraphs = Array.from(
			{ length: 30_000 },
			(_, i) => `<p>Paragraph ${i} with <a href="https://example.test/p${i % 20}">a link</a> &amp; more.</p>`,
		);
		await spooling.send({
			envelope: { from: 'html@sender.test', to: ['html@bodies.test'] },
			raw: await new MailComposer({ subject: 'html', html: paragraphs.join('\n') }).compile().build(),
		});
		const record = await onlyMessage(spooling, 'html@bodies.test');
		expect(record.links).toEqual(Array.from({ length: 20 }, (_, i) => `https://example.test/p${i}`));
		const { text } = await served(spooling, 'html@bodies.test', record._id);
		expect(text.startsWith('Paragraph 0 with a link [1] & more.')).toBe(true);
		expect(text).toMatch(/^Paragraph 29999 with a link .* & more\.$/m);
		expect(text.match(/^Paragraph \d+ /gm)).toHaveLength(30_000);
	});

	it('reads any range of a pieced attachment across piece boundaries', async () => {
		await sendLarge(spooling, 'ranges@spool.test');
		const { _id } = await onlyMessage(spooling, 'ranges@spool.test');
		const list = (await spooling.api(`/api/addresses/ranges@spool.test/messages/${_id}/attachments`)).body as {
			checksum: string;
			fileName: string;
		}[];
		const { checksum } = list.find((a) => a.fileName === 'big.bin')!;
		const attachments = new AttachmentStore(spooling.db);
		for (const [offset, length] of [
			[0, 10],
			[1024 * 1024 - 5, 10],
			[1024 * 1024, 3 * 1024 * 1024],
			[3 * 1024 * 1024 - 1, 100],
		]) {
			expect(attachments.read(checksum, offset, length).equals(bigFile.subarray(offset, offset + length))).toBe(true);
		}
	});

	it('deleting the message deletes its pieces', async () => {
		const remove = async (inbox: string) => {
			const { _id } = await onlyMessage(spooling, inbox);
			expect((await spooling.api(`/api/addresses/${inbox}/messages/${_id}`, { method: 'DELETE' })).status).toBe(200);
		};
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

	it('is forwarded whole (the forward reads it from its spool file inside the transaction)', async () => {
		const owner = spooling.createAccount('forwarder', 5);
		await spooling.api('/api/addresses/fwd@spool.test', { method: 'POST', key: owner.key, body: { forward: 'copy@spool.test' } });
		await sendLarge(spooling, 'fwd@spool.test');
		const [copy] = await waitFor(
			() => spooling.api('/api/addresses/copy@spool.test/messages').then((list) => (list.body.length ? list.body : undefined)),
			'the forwarded copy',
		);
		const raw = Buffer.from(await (await fetch(`${spooling.httpUrl}/api/raw/copy@spool.test/${copy._id}`)).arrayBuffer());
		expect(raw.equals(Buffer.concat([Buffer.from('X-Mailroom-Forwarded-For: fwd@spool.test\r\n'), largeRaw]))).toBe(true);
	});

	it('a parse that fails still stores the message whole, as its text', async () => {
		const slow = await startTestMailroom({ spoolThreshold: 64 * 1024, parseTimeout: 1 });
		try {
			await sendLarge(slow, 'unparsed@spool.test');
			const record = await onlyMessage(slow, 'unparsed@spool.test');
			const raw = Buffer.from(await (await fetch(`${slow.httpUrl}/api/raw/unparsed@spool.test/${record._id}`)).arrayBuffer());
			expect(raw.length).toBe(record.size);
			expect(record.subject).toBe('');
			expect(raw.equals(largeRaw)).toBe(true);
			// Its text is its raw source, written out a window at a time and stored in pieces.
			expect(new MessageStore(slow.db).content('unparsed@spool.test', record._id)!.text).toBe(raw.toString('latin1'));
			expect(countRows(slow, 'content_body_pieces')).toBe(Math.ceil(Buffer.byteLength(raw.toString('latin1')) / (1024 * 1024)));
			expect(readdirSync(join(slow.config.dataDir, 'spool'))).toEqual([]);
		} finally {
			await slow.stop();
		}
	});
});

describe('large messages and retention', () => {
	it('the sweep deletes their pieces with them', async () => {
		const server = await startTestMailroom({ spoolThreshold: 64 * 1024, retentionMaxPerInbox: 1 });
		try {
			await sendLarge(server, 'full@spool.test');
			const onePiecesWorth = countRows(server, 'content_raw_pieces');
			await sendLarge(server, 'full@spool.test');
			expect(countRows(server, 'content_raw_pieces')).toBe(2 * onePiecesWorth);
			await server.retention.sweep();
			expect(countRows(server, 'content_raw_pieces')).toBe(onePiecesWorth);
			expect(countRows(server, 'attachment_pieces')).toBe(4);
		} finally {
			await server.stop();
		}
	});
});

describe('large messages across a restart', () => {
	const dataDir = tempDataDir();
	afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

	it('are still there, and what a crash left in the spool folder is swept', async () => {
		const first = await startTestMailroom({ dataDir, spoolThreshold: 64 * 1024 });
		await sendLarge(first, 'kept@spool.test');
		const before = await served(first, 'kept@spool.test', (await onlyMessage(first, 'kept@spool.test'))._id);
		await first.stop({ removeData: false });
		// What a crash in the middle of a message leaves behind.
		const leftover = join(dataDir, 'spool', 'crashed');
		mkdirSync(leftover, { recursive: true });
		writeFileSync(join(leftover, 'message.eml'), 'partial');

		const second = await startTestMailroom({ dataDir, spoolThreshold: 64 * 1024 });
		try {
			expect(existsSync(leftover)).toBe(false);
			const after = await served(second, 'kept@spool.test', before.record._id);
			expect(after.record).toEqual(before.record);
			expect(after.raw.equals(before.raw)).toBe(true);
			expect(after.attachmentBytes.every((bytes, i) => bytes.equals(before.attachmentBytes[i]))).toBe(true);
		} finally {
			await second.stop({ removeData: false });
		}
	});
});
