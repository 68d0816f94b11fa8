import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INodeParameters } from 'n8n-workflow';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { sendMail } from '../../../helpers/messages';
import { runNode, startNodeFixture, type NodeFixture } from '../../../helpers/n8n';

/** The Message operations on one message, in n8n-core's real ExecuteContext against a real server. */
describe('Mailroom node: message operations', () => {
	let fixture: NodeFixture;
	const inbox = 'actions@example.test';

	beforeAll(async () => {
		fixture = await startNodeFixture({ account: 'n8n-actions' });
		await fixture.server.addresses.reserve(inbox, fixture.account.id);
	});
	afterAll(() => fixture.stop());

	const run = (operation: string, parameters: INodeParameters, version?: number) =>
		runNode(fixture.n8n, { resource: 'message', operation, email: inbox, ...parameters }, { version });
	const one = async (operation: string, parameters: INodeParameters, version?: number) =>
		(await run(operation, parameters, version))[0].json;
	const record = async (id: string) =>
		(await fixture.server.api<MessageRecord>(`/api/addresses/${inbox}/messages/${id}`, { key: fixture.account.key })).body;
	const send = (mail: Parameters<typeof sendMail>[1] = {}) => sendMail(fixture.server, { to: inbox, ...mail });

	it('Get Raw, Get HTML, Get Text and Get Headers read a message, in both versions', async () => {
		const [id] = await send({
			subject: 'Parts',
			html: '<p onclick="x()">Hi <img src="https://t.test/p.png"></p>',
			text: 'Hi, see https://t.test/',
		});
		expect((await one('getRaw', { messageId: id })).raw).toMatch(/^Subject: Parts\r?$/m);
		expect(await one('getText', { messageId: id }, 1)).toEqual({
			email: inbox,
			messageId: id,
			text: expect.stringMatching(/^Hi, see \[1\]/),
		});
		expect((await one('getHeaders', { messageId: id }, 1)).headers).toMatchObject({ subject: ['Parts'] });
		expect((await one('getText', { messageId: id })).text).toMatch(/^Hi, see \[1\]/);
		expect((await one('getHeaders', { messageId: id })).headers).toMatchObject({ subject: ['Parts'] });
		expect((await one('getHtml', { messageId: id })).html).toBe('<p>Hi </p>');
		expect((await one('getHtml', { messageId: id, remoteImages: true })).html).toBe('<p>Hi <img src="https://t.test/p.png" /></p>');
		expect((await one('getHtml', { messageId: id, sanitized: false })).html).toContain('onclick="x()"');
	});

	it('Get Attachment outputs binary data with the file name and MIME type', async () => {
		const content = Buffer.from('%PDF-1.4 bytes');
		const [id] = await send({ attachments: [{ filename: 'invoice.pdf', content, contentType: 'application/pdf' }] });
		const [item] = await run('getAttachment', { messageId: id, attachment: 'invoice.pdf', binaryPropertyName: 'file' });
		expect(item.json).toMatchObject({ fileName: 'invoice.pdf', contentType: 'application/pdf', length: content.length });
		expect(item.binary!.file).toMatchObject({ fileName: 'invoice.pdf', mimeType: 'application/pdf' });
		expect(Buffer.from(item.binary!.file.data, 'base64')).toEqual(content);
		const missing = await run('getAttachment', { messageId: id, attachment: 'other.pdf' }).catch((e: Error) => e);
		expect(missing).toMatchObject({ message: 'The message has no attachment "other.pdf"' });
	});

	it('Add/Remove Label, Move to Folder and Mark as Read/Unread change the message', async () => {
		const [id] = await send();
		expect(await one('addLabel', { messageId: id, label: 'to do' })).toEqual({ _id: id, labels: ['to do'] });
		expect(await one('removeLabel', { messageId: id, label: 'to do' })).toEqual({ _id: id, labels: [] });
		expect(await one('moveToFolder', { messageId: id, folder: 'trash' })).toEqual({ _id: id, folder: 'trash' });
		expect(await one('markRead', { messageId: id })).toEqual({ _id: id, read: true });
		expect(await one('markUnread', { messageId: id })).toEqual({ _id: id, read: false });
		expect(await record(id)).toMatchObject({ folder: 'trash', read: false, labels: [] });
	});

	it('Star and Unstar are idempotent: a retried run leaves the message as the operation says', async () => {
		const [id] = await send();
		const { account } = fixture;
		for (const version of [1.1, 1]) {
			expect(await one('star', { messageId: id }, version)).toMatchObject({ _id: id, savedBy: account.id });
			expect(await one('star', { messageId: id }, version)).toMatchObject({ _id: id, savedBy: account.id });
			expect(await record(id)).toMatchObject({ savedBy: account.id });
			expect(await one('unstar', { messageId: id }, version)).toMatchObject({ _id: id, savedBy: null });
			expect(await one('unstar', { messageId: id }, version)).toMatchObject({ _id: id, savedBy: null });
			expect(await record(id)).toMatchObject({ savedBy: null });
		}
	});

	it('Delete removes one message; Delete All empties the inbox but for starred mail', async () => {
		const [gone, starred, other] = [(await send())[0], (await send())[0], (await send())[0]];
		expect(await one('delete', { messageId: gone })).toEqual({ _id: gone, inbox, message: 'Message was deleted.' });
		await one('star', { messageId: starred });
		expect(await one('deleteAll', {})).toEqual({ email: inbox, deleted: true });
		const listed = await fixture.server.api<MessageRecord[]>(`/api/addresses/${inbox}/messages`, { key: fixture.account.key });
		const left = listed.body.map((m) => m._id);
		expect(left).toContain(starred);
		expect(left).not.toContain(other);
		const error = await one('delete', { messageId: gone }).catch((e: unknown) => e);
		expect(error).toMatchObject({ name: 'NodeApiError', httpCode: '404' });
	});
});
