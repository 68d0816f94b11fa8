import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { startTestMailroom, type TestMailroom } from '../../../helpers/mailroom';
import { countRows, onlyMessage } from '../../../helpers/inboxes';
import { LARGE_ATTACHMENTS, largeBodies, sendLarge, served, sevenBitMail } from '../../../helpers/large-messages';
import { omit, sendMail, sendRawTo } from '../../../helpers/messages';
import { spoolEntries } from '../../../helpers/spool';
import { SpoolingPair } from '../../../helpers/spooling-pair';
import { readWhileDeleted } from '../../../helpers/deleted-while-read';
import { fetchRaw, type RawResponse } from '../../../helpers/raw-http';

// Messages of 8 to 16 MB, sent, parsed, stored and read whole: on PostgreSQL (whose pieces travel as parameters of a query
// each) or on a busy machine these take longer than the default 30 s.
jest.setTimeout(90_000);

/** 50,000 lines, with multi-byte characters on every one, so the 1 MB pieces cut through them: about 2 to 2.3 MB in all. */
const lines = (line: (i: number) => string) => Array.from({ length: 50_000 }, (_, i) => line(i)).join('');
const textLine = (i: number) => `Zürich 😀 “line” ${i} & <b> "quoted"\n`;

/** Bodies stored in pieces, streamed a piece at a time: the same bytes and headers as the same message kept in memory. */
describe('stored bodies of large messages', () => {
	let pair: SpoolingPair;
	beforeAll(async () => {
		pair = await SpoolingPair.start();
	});
	afterAll(() => pair.stop());

	describe('every part of a large message (its raw source, attachments and bodies stored in pieces)', () => {
		it('serves the record, text, headers, HTML, raw source and attachments byte for byte as the same message kept in memory', async () => {
			const { spooling, inMemory } = pair;
			await Promise.all([sendLarge(spooling, 'big@spool.test'), sendLarge(inMemory, 'big@spool.test')]);
			const spooled = await onlyMessage(spooling, 'big@spool.test');
			const kept = await onlyMessage(inMemory, 'big@spool.test');
			expect(spooled.size).toBeGreaterThan(4 * 1024 * 1024);
			expect(await countRows(spooling, 'content_raw_pieces')).toBe(Math.ceil(spooled.size / (1024 * 1024)));

			const [fromSpool, fromMemory] = await Promise.all([
				served(spooling, 'big@spool.test', spooled._id),
				served(inMemory, 'big@spool.test', kept._id),
			]);
			expect(omit(fromSpool.record, '_id', 'received', 'threadId')).toEqual(omit(fromMemory.record, '_id', 'received', 'threadId'));
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
			// Nothing is left in the spool folder.
			expect(spoolEntries(spooling)).toEqual([]);
		});

		it('serves large text and HTML bodies as the same messages kept in memory', async () => {
			const { spooling, inMemory } = pair;
			for (const [inbox, raw] of Object.entries(await largeBodies())) {
				await Promise.all([sendRawTo(spooling, inbox, raw), sendRawTo(inMemory, inbox, raw)]);
				const spooled = await onlyMessage(spooling, inbox);
				const kept = await onlyMessage(inMemory, inbox);
				expect(await pair.bodyPieces(spooled._id, 'text')).toBeGreaterThan(1);
				const [fromSpool, fromMemory] = await Promise.all([served(spooling, inbox, spooled._id), served(inMemory, inbox, kept._id)]);
				expect(omit(fromSpool.record, '_id', 'received', 'threadId')).toEqual(omit(fromMemory.record, '_id', 'received', 'threadId'));
				expect(fromSpool.text.length).toBeGreaterThan(1024 * 1024);
				expect(fromSpool.text).toBe(fromMemory.text);
				expect(fromSpool.dirty).toBe(fromMemory.dirty);
			}
			expect(spoolEntries(spooling)).toEqual([]);
		});
	});

	describe('numberedTextBody: GET /api/text of a large message (its text stored in pieces)', () => {
		it('streams a text without links as stored, the same bytes and headers as the same message kept in memory', async () => {
			const text = lines(textLine);
			const ids = await pair.send({ to: 'large@example.test', subject: 'large text', text });
			expect(await pair.bodyPieces(ids[0], 'text')).toBeGreaterThan(1);
			const response = await pair.sameResponse(ids, (id) => `/api/text/large@example.test/${id}`);
			expect(response.status).toBe(200);
			expect(response.contentType).toBe('text/plain; charset=utf-8');
			expect(response.bytes.toString().trim()).toBe(text.trim());
		});

		it('streams a text with links numbered, trailing blanks dropped before the list, as numbering it whole does', async () => {
			const text = `${lines((i) => (i % 1000 === 999 ? `see https://example.org/${i % 3000}?q=é ` : '') + textLine(i))}  \n\n`;
			const ids = await pair.send({ to: 'large@example.test', subject: 'large text with links', text });
			expect(await pair.bodyPieces(ids[0], 'text')).toBeGreaterThan(1);
			const response = await pair.sameResponse(ids, (id) => `/api/text/large@example.test/${id}`);
			expect(response.status).toBe(200);
			expect(response.contentType).toBe('text/plain; charset=utf-8');
			const body = response.bytes.toString();
			expect(body).toContain(`see [3] ${textLine(2999)}`);
			expect(
				body.endsWith(
					`${textLine(49_999).trimEnd()}\n\n\n\n[1] https://example.org/999?q=é\n[2] https://example.org/1999?q=é\n[3] https://example.org/2999?q=é\n`,
				),
			).toBe(true);
		});

		it('cuts the connection short of the Content-Length when the message is deleted while its text streams, and serves on', async () => {
			const { spooling: server } = pair;
			// 16 MB: more than the kernel's socket buffers hold, so most pieces are still to be read when the message goes. Lines
			// short enough to go as they are (7bit): nodemailer's quoted-printable of 16 MB would take seconds.
			const text = `https://example.org/first\n${`${'x'.repeat(74)}\n`.repeat(215_000)}`;
			const [id] = await sendMail(server, sevenBitMail({ to: 'deleted@example.test', text }));
			const cut = await readWhileDeleted(server, `/api/text/deleted@example.test/${id}`, 'deleted@example.test', id);
			expect(cut.status).toBe(200);
			expect(cut.contentLength).toBe(
				Buffer.byteLength(text.replace('https://example.org/first', '[1]').trimEnd()) + '\n\n\n\n[1] https://example.org/first\n'.length,
			);
			expect(cut.complete).toBe(false);
			expect(cut.received).toBeLessThan(cut.contentLength);
			expect((await server.api(`/api/text/deleted@example.test/${id}`)).status).toBe(404);
			expect((await server.api<{ count: number }>('/api/addresses/deleted@example.test/message-count')).body.count).toBe(0);
		});
	});

	describe('dirtyHtmlBody: GET /api/dirty of a large message (its bodies stored in pieces)', () => {
		it('streams the HTML as stored, the same bytes and headers as the same message kept in memory', async () => {
			const html = `<html><body>${lines((i) => `<p>Zürich 😀 “line” ${i} &amp; <b onclick="x()">bold</b></p>\n`)}</body></html>`;
			const ids = await pair.send({ to: 'large@example.test', subject: 'large HTML', html, text: 'small text' });
			expect(await pair.bodyPieces(ids[0], 'html')).toBeGreaterThan(1);
			const response = await pair.sameResponse(ids, (id) => `/api/dirty/large@example.test/${id}`);
			expect(response.status).toBe(200);
			expect(response.contentType).toBe('text/html; charset=utf-8');
			expect(response.bytes.toString()).toBe(html);
		});

		it('streams the page made for a large text without an HTML part, escaped as for a small one', async () => {
			const text = lines(textLine);
			const ids = await pair.send({ to: 'large@example.test', subject: 'large text', text });
			expect(await pair.bodyPieces(ids[0], 'text')).toBeGreaterThan(1);
			const response = await pair.sameResponse(ids, (id) => `/api/dirty/large@example.test/${id}`);
			expect(response.status).toBe(200);
			expect(response.contentType).toBe('text/html; charset=utf-8');
			const page = response.bytes.toString();
			expect(page.startsWith('<!DOCTYPE html>')).toBe(true);
			expect(page).toContain('Zürich 😀 “line” 49999 &amp; &lt;b&gt; &quot;quoted&quot;\n');
		});
	});

	describe('jsonBody: GET …/payload of a large message (its bodies stored in pieces)', () => {
		const payloadPath = (id: string) => `/api/addresses/large@example.test/messages/${id}/payload`;

		it('streams the JSON, its Content-Length the bytes sent, with the text and HTML of the same message kept in memory', async () => {
			const text = lines(textLine);
			const html = `<div>${lines((i) => `<p>Zürich 😀 “line” ${i}</p>\n`)}</div>`;
			const ids = await pair.send({ to: 'large@example.test', subject: 'large payload', text, html });
			expect(await pair.bodyPieces(ids[0], 'text')).toBeGreaterThan(1);
			expect(await pair.bodyPieces(ids[0], 'html')).toBeGreaterThan(1);
			const [spooled, inMemory] = await Promise.all([
				fetchRaw(pair.spooling, payloadPath(ids[0])),
				fetchRaw(pair.inMemory, payloadPath(ids[1])),
			]);
			expect(spooled.status).toBe(200);
			expect(Number(spooled.contentLength)).toBe(spooled.bytes.length);
			const bodies = (response: RawResponse) => {
				const payload = JSON.parse(response.bytes.toString()) as { text: string; html: string };
				return { text: payload.text, html: payload.html };
			};
			expect(bodies(spooled)).toEqual({ text, html });
			expect(bodies(inMemory)).toEqual({ text, html });
		});

		it('cuts the connection short of the Content-Length when the message is deleted while its payload streams, and serves on', async () => {
			const { spooling: server } = pair;
			// 8 MB of text, and as much raw source: more than the kernel's socket buffers hold, so most pieces are still to be
			// read when the message goes. Lines short enough to go as they are (7bit).
			const [id] = await sendMail(server, sevenBitMail({ to: 'deleted@example.test', text: `${'x'.repeat(74)}\n`.repeat(107_000) }));
			const path = `/api/addresses/deleted@example.test/messages/${id}/payload`;
			const cut = await readWhileDeleted(server, path, 'deleted@example.test', id);
			expect(cut.status).toBe(200);
			expect(cut.contentLength).toBeGreaterThan(16_000_000);
			expect(cut.complete).toBe(false);
			expect(cut.received).toBeLessThan(cut.contentLength);
			expect((await server.api(path)).status).toBe(404);
			expect((await server.api<{ count: number }>('/api/addresses/deleted@example.test/message-count')).body.count).toBe(0);
		});
	});
});

describe('dirtyHtmlBody: GET /api/dirty of a large message deleted while its HTML streams', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom();
	});
	afterAll(() => server.stop());

	it('cuts the connection short of the Content-Length, so the client sees an incomplete body, and serves on', async () => {
		// 16 MB: more than the kernel's socket buffers hold, so most pieces are still to be read when the message goes. Lines
		// short enough to go as they are (7bit).
		const html = `<html><body>${`<p>${'x'.repeat(67)}</p>\n`.repeat(215_000)}</body></html>`;
		const [id] = await sendMail(server, sevenBitMail({ to: 'deleted@example.test', html, text: 'small text' }));
		const cut = await readWhileDeleted(server, `/api/dirty/deleted@example.test/${id}`, 'deleted@example.test', id);
		expect(cut.status).toBe(200);
		expect(cut.contentLength).toBe(Buffer.byteLength(html));
		expect(cut.complete).toBe(false);
		expect(cut.received).toBeLessThan(cut.contentLength);
		expect((await server.api(`/api/dirty/deleted@example.test/${id}`)).status).toBe(404);
		expect((await server.api<{ count: number }>('/api/addresses/deleted@example.test/message-count')).body.count).toBe(0);
	});
});
