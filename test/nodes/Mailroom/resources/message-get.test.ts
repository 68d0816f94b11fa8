import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INodeParameters } from 'n8n-workflow';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { sendMail } from '../../../helpers/messages';
import { runNode, startNodeFixture, type NodeFixture } from '../../../helpers/n8n';

/** Message → Get in n8n-core's real ExecuteContext against a real server. */
describe('Mailroom node: Message Get', () => {
	let fixture: NodeFixture;
	const inbox = 'get@example.test';

	beforeAll(async () => {
		fixture = await startNodeFixture({ account: 'getter' });
		fixture.server.addresses.reserve(inbox, fixture.account.id);
	});
	afterAll(() => fixture.stop());

	const get = async (parameters: INodeParameters) =>
		(await runNode(fixture.n8n, { resource: 'message', operation: 'get', email: inbox, ...parameters }))[0];
	const record = async (id: string) =>
		(await fixture.server.api<MessageRecord>(`/api/addresses/${inbox}/messages/${id}`, { key: fixture.account.key })).body;

	const pdf = Buffer.from('%PDF-1.4 invoice bytes \x00\xff');
	const mail = {
		to: inbox,
		cc: 'Boss <boss@example.org>',
		from: 'Alice <alice@sender.test>',
		subject: 'Order 7',
		text: 'Two boxes, see https://shop.test/order/7',
		html: '<p>Two <b>boxes</b></p>',
		attachments: [
			{ filename: 'invoice.pdf', content: pdf, contentType: 'application/pdf' },
			{ filename: 'terms.txt', content: 'Payable within 30 days.', contentType: 'text/plain' },
		],
	};

	it('Simplify (on by default): the compact item with the bodies, the attachment list and the state', async () => {
		const [id] = await sendMail(fixture.server, mail);
		await runNode(fixture.n8n, { resource: 'message', operation: 'addLabel', email: inbox, messageId: id, label: 'orders' });
		await runNode(fixture.n8n, { resource: 'message', operation: 'star', email: inbox, messageId: id });
		const stored = await record(id);
		const item = await get({ messageId: id });
		expect(item.binary).toBeUndefined();
		expect(item.json).toEqual({
			_id: id,
			inbox,
			from: [{ address: 'alice@sender.test', name: 'Alice' }],
			to: [{ address: inbox, name: '' }],
			cc: [{ address: 'boss@example.org', name: 'Boss' }],
			subject: 'Order 7',
			received: stored.received,
			// As GET /api/text serves it: links numbered and listed at the end.
			text: expect.stringMatching(/^Two boxes, see \[1\][\s\S]*\[1\] https:\/\/shop\.test\/order\/7/),
			html: '<p>Two <b>boxes</b></p>',
			attachments: [
				{ filename: 'invoice.pdf', contentType: 'application/pdf', size: pdf.length, checksum: stored.attachments![0], contentId: null },
				{ filename: 'terms.txt', contentType: 'text/plain', size: 23, checksum: stored.attachments![1], contentId: null },
			],
			labels: ['orders'],
			folder: 'inbox',
			read: stored.read,
			starred: true,
		});
	});

	it('Simplify off: the whole record with the bodies, the headers and the attachment names', async () => {
		const [id] = await sendMail(fixture.server, { ...mail, headers: { 'X-Order': '7' } });
		const stored = await record(id);
		const { json } = await get({ messageId: id, simplify: false });
		expect(json).toEqual({
			...stored,
			text: expect.stringContaining('Two boxes'),
			html: '<p>Two <b>boxes</b></p>',
			headers: expect.objectContaining({ subject: ['Order 7'], 'x-order': ['7'] }),
			attachmentNames: ['invoice.pdf', 'terms.txt'],
		});
	});

	it('Download Attachments: each attachment as binary data, byte for byte, named with the prefix and its index', async () => {
		const [id] = await sendMail(fixture.server, mail);
		const item = await get({ messageId: id, options: { downloadAttachments: true } });
		expect(Object.keys(item.binary!)).toEqual(['attachment_0', 'attachment_1']);
		expect(item.binary!.attachment_0).toMatchObject({ fileName: 'invoice.pdf', mimeType: 'application/pdf' });
		expect(Buffer.from(item.binary!.attachment_0.data, 'base64')).toEqual(pdf);
		expect(Buffer.from(item.binary!.attachment_1.data, 'base64').toString()).toBe('Payable within 30 days.');
		const prefixed = await get({ messageId: id, options: { downloadAttachments: true, dataPropertyAttachmentsPrefixName: 'file' } });
		expect(Object.keys(prefixed.binary!)).toEqual(['file0', 'file1']);
	});

	it("an unknown message: the server's 404", async () => {
		await expect(get({ messageId: 'NoSuchMessage1' })).rejects.toMatchObject({ name: 'NodeApiError', httpCode: '404' });
	});
});
