import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INodeParameters } from 'n8n-workflow';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { enc, sendMail } from '../../../helpers/messages';
import { waitFor } from '../../../helpers/webhook-receiver';
import { runNode, startNodeFixture, type NodeFixture } from '../../../helpers/n8n';

/** Message → Get in n8n-core's real ExecuteContext against a real server. */
describe('Mailroom node: Message Get', () => {
	let fixture: NodeFixture;
	const inbox = 'get@example.test';

	beforeAll(async () => {
		fixture = await startNodeFixture({ account: 'getter' });
		await fixture.server.addresses.reserve(inbox, fixture.account.id);
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

	it("Simplify (on by default): the trigger's simplified item, the bodies as sent, then the message's state", async () => {
		const [id] = await sendMail(fixture.server, {
			...mail,
			replyTo: '"Order Desk" <orders@sender.test>, Grüße <gruesse@sender.test>',
			date: new Date('2026-11-20T09:30:00Z'),
			messageId: '<order-7@sender.test>',
		});
		await runNode(fixture.n8n, { resource: 'message', operation: 'addLabel', email: inbox, messageId: id, label: 'orders' });
		await runNode(fixture.n8n, { resource: 'message', operation: 'star', email: inbox, messageId: id });
		const stored = await record(id);
		const item = await get({ messageId: id });
		expect(item.binary).toBeUndefined();
		const attachmentUrl = (checksum: string) =>
			`${fixture.server.publicUrl}/api/addresses/${enc(inbox)}/messages/${id}/attachments/${checksum}`;
		expect(item.json).toEqual({
			_id: id,
			threadId: stored.threadId,
			inbox,
			from: [{ address: 'alice@sender.test', name: 'Alice' }],
			fromAddress: 'alice@sender.test',
			fromName: 'Alice',
			to: [{ address: inbox, name: '' }],
			cc: [{ address: 'boss@example.org', name: 'Boss' }],
			replyTo: [
				{ address: 'orders@sender.test', name: 'Order Desk' },
				{ address: 'gruesse@sender.test', name: 'Grüße' },
			],
			subject: 'Order 7',
			date: '2026-11-20T09:30:00.000Z',
			messageId: '<order-7@sender.test>',
			// As sent: the link where it was, not numbered as GET /api/text numbers it.
			text: mail.text,
			// Nothing quoted to strip: what the person wrote is the whole text.
			strippedText: mail.text,
			html: mail.html,
			attachments: [
				{
					filename: 'invoice.pdf',
					contentType: 'application/pdf',
					size: pdf.length,
					checksum: stored.attachments![0],
					contentId: null,
					url: attachmentUrl(stored.attachments![0]),
				},
				{
					filename: 'terms.txt',
					contentType: 'text/plain',
					size: 23,
					checksum: stored.attachments![1],
					contentId: null,
					url: attachmentUrl(stored.attachments![1]),
				},
			],
			codes: [],
			// The test server does not verify senders (see the sender-auth tests).
			auth: null,
			received: stored.received,
			labels: ['orders'],
			folder: 'inbox',
			// Never marked (the record's read is null): unread.
			read: false,
			starred: true,
		});
	});

	it('gives html null for mail without an HTML part, Simplify on or off', async () => {
		const text = 'Just text, see https://shop.test/plain';
		const [id] = await sendMail(fixture.server, { to: inbox, subject: 'Plain', text });
		for (const simplify of [true, false]) {
			const { json } = await get({ messageId: id, simplify });
			// With the line break that ends a message of one text part, as the trigger gets it too.
			expect(json).toMatchObject({ text: `${text}\n`, html: null });
		}
	});

	it("gives what the Mailroom Trigger's simplified item has for the same message, field for field", async () => {
		const trigger = await fixture.n8n.trigger('mailroomTrigger', { email: inbox });
		await trigger.hook('create');
		const ids = [
			...(await sendMail(fixture.server, {
				...mail,
				html: '<p>Two <img src="cid:logo@shop"> boxes</p>',
				attachments: [
					...mail.attachments,
					{ filename: 'logo.png', content: Buffer.from('png'), contentType: 'image/png', cid: 'logo@shop' },
				],
			})),
			...(await sendMail(fixture.server, { to: inbox, subject: 'Plain', text: 'No HTML part here' })),
		];
		const runs = await waitFor(() => (trigger.runs.length === 2 ? trigger.runs : undefined), 'a trigger run per message');
		await trigger.hook('delete');
		for (const [[delivered]] of runs) {
			expect(ids).toContain(delivered.json._id);
			const { json } = await get({ messageId: delivered.json._id as string });
			expect(json).toEqual({ ...delivered.json, labels: [], folder: 'inbox', read: false, starred: false });
		}
	});

	it('Simplify off: the whole record with the bodies as sent, the headers and the attachment names', async () => {
		const [id] = await sendMail(fixture.server, { ...mail, headers: { 'X-Order': '7' } });
		const stored = await record(id);
		const { json } = await get({ messageId: id, simplify: false });
		expect(json).toEqual({
			...stored,
			text: mail.text,
			html: mail.html,
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
