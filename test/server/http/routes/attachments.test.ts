import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import type { AttachmentMeta, MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom, type TestMailroom } from '../../../helpers/mailroom';
import { expectError, sendMail, sendRawTo } from '../../../helpers/messages';
import { ATTACHMENT_CHUNK } from 'mailroom-server/dist/http/routes/attachments';
import { queryValue } from '../../../helpers/database';

const md5 = (data: Buffer | string) => createHash('md5').update(data).digest('hex');

describe('attachments', () => {
	let server: TestMailroom;
	let id: string;
	const inbox = 'files@example.test';
	const big = randomBytes(2 * ATTACHMENT_CHUNK + 17); // streamed in three pieces
	const pdf = Buffer.from('%PDF-1.4 tiny');
	const url = (suffix = '') => `/api/addresses/${inbox}/messages/${id}/attachments${suffix}`;

	beforeAll(async () => {
		server = await startTestMailroom();
		[id] = await sendMail(server, {
			to: inbox,
			attachments: [
				{ filename: 'résumé "final".pdf', content: pdf, contentType: 'application/pdf' },
				{
					filename: 'logo.png',
					content: Buffer.from('png bytes'),
					contentType: 'image/png',
					cid: 'logo@example.test',
					contentDisposition: 'inline',
				},
				{ filename: 'big.bin', content: big, contentType: 'application/octet-stream' },
			],
		});
	});
	afterAll(() => server.stop());

	it('lists metadata of every attachment, in order', async () => {
		const response = await server.api<AttachmentMeta[]>(url());
		expect(response.status).toBe(200);
		expect(response.body).toEqual([
			{
				checksum: md5(pdf),
				contentType: 'application/pdf',
				fileName: 'résumé "final".pdf',
				length: pdf.length,
				contentId: null,
				contentDisposition: 'attachment',
				transferEncoding: 'base64',
			},
			expect.objectContaining({
				checksum: md5('png bytes'),
				contentType: 'image/png',
				fileName: 'logo.png',
				contentId: '<logo@example.test>',
				contentDisposition: 'inline',
			}),
			expect.objectContaining({ checksum: md5(big), length: big.length, fileName: 'big.bin' }),
		]);
		const record = (await server.api<MessageRecord>(`/api/addresses/${inbox}/messages/${id}`)).body;
		expect(record.attachments).toEqual(response.body.map((a) => a.checksum));
	});

	it('downloads by checksum with the content type and a safely encoded file name', async () => {
		const response = await fetch(`${server.httpUrl}${url(`/${md5(pdf)}`)}`);
		expect(response.status).toBe(200);
		expect(response.headers.get('content-type')).toBe('application/pdf');
		expect(response.headers.get('content-disposition')).toBe(
			`attachment; filename="r?sum? \\"final\\".pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22.pdf`,
		);
		expect(response.headers.get('x-content-type-options')).toBe('nosniff');
		expect(Buffer.from(await response.arrayBuffer())).toEqual(pdf);
	});

	it('finds an attachment by Content-ID (with or without <>) and by file name', async () => {
		for (const identifier of ['logo@example.test', '<logo@example.test>', 'logo.png']) {
			const response = await fetch(`${server.httpUrl}${url(`/${encodeURIComponent(identifier)}`)}`);
			expect(response.headers.get('content-type')).toBe('image/png');
			expect(Buffer.from(await response.arrayBuffer()).toString()).toBe('png bytes');
		}
	});

	it('streams a large attachment intact, piece by piece', async () => {
		const response = await fetch(`${server.httpUrl}${url(`/${md5(big)}`)}`);
		expect(response.headers.get('content-length')).toBe(String(big.length));
		expect(md5(Buffer.from(await response.arrayBuffer()))).toBe(md5(big));
	});

	it('offers a download under the base name only, without bidirectional controls: a file name cannot send a client saving it out of its folder, nor disguise its type', async () => {
		const part = (name: string, body: string) =>
			`--b\r\nContent-Type: text/plain\r\nContent-Disposition: attachment; filename="${name}"\r\n\r\n${body}\r\n`;
		const raw = Buffer.from(
			'From: a@sender.test\r\nTo: paths@example.test\r\nSubject: paths\r\nMIME-Version: 1.0\r\n' +
				'Content-Type: multipart/mixed; boundary="b"\r\n\r\n' +
				part('../../../../tmp/x', 'unix') +
				part('C:\\\\Windows\\\\evil.bat', 'windows') +
				part('..', 'dots') +
				part('invoice\u202Efdp.exe', 'reversed') +
				'--b--\r\n',
		);
		await sendRawTo(server, 'paths@example.test', raw);
		const [message] = (await server.api<MessageRecord[]>('/api/addresses/paths@example.test/messages')).body;
		const list = (await server.api<AttachmentMeta[]>(`/api/addresses/paths@example.test/messages/${message._id}/attachments`)).body;
		// The metadata keeps the name as sent; only the download's Content-Disposition is made safe.
		expect(list.map((attachment) => attachment.fileName)).toEqual([
			'../../../../tmp/x',
			'C:\\Windows\\evil.bat',
			'..',
			'invoice\u202Efdp.exe',
		]);
		const dispositions = await Promise.all(
			list.map(async ({ checksum }) => {
				const response = await fetch(`${server.httpUrl}/api/addresses/paths@example.test/messages/${message._id}/attachments/${checksum}`);
				return response.headers.get('content-disposition');
			}),
		);
		expect(dispositions).toEqual([
			'attachment; filename=x',
			'attachment; filename=evil.bat',
			`attachment; filename=${md5('dots')}`,
			// The right-to-left override would show it as "invoiceexe.pdf".
			'attachment; filename=invoicefdp.exe',
		]);
	});

	it('answers 404 for an unknown identifier or message', async () => {
		expectError(await server.api(url('/nothing.txt')), 404, /no attachment/);
		expectError(await server.api(`/api/addresses/${inbox}/messages/unknownid/attachments/${md5(pdf)}`), 404, /No message/);
		expectError(await server.api(`/api/addresses/${inbox}/messages/unknownid/attachments`), 404);
	});

	it('keeps bytes shared with another message until the last one is deleted', async () => {
		const shared = Buffer.from('shared by two messages');
		const [first] = await sendMail(server, { to: 'a@example.test', attachments: [{ filename: 'shared.txt', content: shared }] });
		const [second] = await sendMail(server, { to: 'b@example.test', attachments: [{ filename: 'copy.txt', content: shared }] });
		const stored = () => queryValue(server, 'SELECT count(*) FROM attachment_contents WHERE checksum = ?', [md5(shared)]);
		expect(await stored()).toBe(1);
		await server.api(`/api/addresses/a@example.test/messages/${first}`, { method: 'DELETE' });
		const download = await server.api(`/api/addresses/b@example.test/messages/${second}/attachments/${md5(shared)}`);
		expect([download.status, download.text]).toEqual([200, shared.toString()]);
		expect(await stored()).toBe(1);
		await server.api(`/api/addresses/b@example.test/messages/${second}`, { method: 'DELETE' });
		expect(await stored()).toBe(0);
	});
});
