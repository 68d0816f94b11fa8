import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Mailsac, MessageFolder } from '@mailsac/api';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { sendMail } from '../../helpers/messages';
import { WebhookReceiver, waitFor } from '../../helpers/webhook-receiver';

/**
 * Mailsac's own client library (@mailsac/api 1.0.8), unmodified and configured as its README says (the key in a
 * Mailsac-Key header), with its base URL pointed at Mailroom: every method whose route Mailroom has works, and the
 * methods of Mailsac services Mailroom does not have (docs/api.md lists them) get a plain 404.
 */
describe("Mailsac's client (@mailsac/api) against Mailroom", () => {
	const inbox = 'client@mailsac-client.test';
	const domain = 'owned.mailsac-client.test';
	let server: TestMailroom;
	let receiver: WebhookReceiver;
	let account: { id: string; key: string };
	let mailsac: Mailsac<unknown>;
	let messageId: string;

	beforeAll(async () => {
		server = await startTestMailroom();
		receiver = new WebhookReceiver();
		await receiver.listen();
		account = await server.createAccount('mailsac-client');
		mailsac = new Mailsac({ baseURL: `${server.httpUrl}/api`, headers: { 'Mailsac-Key': account.key } });
	});
	afterAll(async () => {
		await receiver.close();
		await server.stop();
	});

	it('account: user and accountStats', async () => {
		expect((await mailsac.account.user()).data).toMatchObject({ _id: account.id, name: 'mailsac-client' });
		expect((await mailsac.account.accountStats()).data).toMatchObject({ addresses: [], domains: [] });
	});

	it('addresses: checkAvailability, createAddress (bodiless and with settings), getAddress, listAddresses, createAddresses', async () => {
		expect((await mailsac.addresses.checkAvailability(inbox)).data).toEqual({ email: inbox, available: true, owned: false });
		// No data: the client sends Content-Type: application/json and an empty body.
		expect((await mailsac.addresses.createAddress(inbox)).data).toMatchObject({ _id: inbox, owner: account.id });
		const withSettings = await mailsac.addresses.createAddress('settings@mailsac-client.test', { info: 'from the client', enablews: true });
		expect(withSettings.data).toMatchObject({ _id: 'settings@mailsac-client.test', info: 'from the client', enablews: true });
		expect((await mailsac.addresses.getAddress(inbox)).data).toMatchObject({ _id: inbox, webhook: null });
		const bulk = await mailsac.addresses.createAddresses({ addresses: ['bulk1@mailsac-client.test', 'bulk2@mailsac-client.test'] });
		expect(bulk.data.map((address) => address._id)).toEqual(['bulk1@mailsac-client.test', 'bulk2@mailsac-client.test']);
		expect((await mailsac.addresses.listAddresses()).data.map((address) => address._id)).toEqual([
			'bulk1@mailsac-client.test',
			'bulk2@mailsac-client.test',
			inbox,
			'settings@mailsac-client.test',
		]);
	});

	it('forwarding: updateAddress sets the webhook, and mail to the address is posted there', async () => {
		await mailsac.addresses.updateAddress(inbox, { webhook: `${receiver.url}/mailsac` });
		expect((await mailsac.addresses.getAddress(inbox)).data.webhook).toBe(`${receiver.url}/mailsac`);
		[messageId] = await sendMail(server, {
			to: inbox,
			subject: 'Invoice 7',
			text: 'See https://example.org/invoice',
			html: '<p>See <a href="https://example.org/invoice">it</a></p>',
			attachments: [{ filename: 'invoice.txt', content: 'total: 42' }],
		});
		const delivered = await waitFor(() => receiver.requests.find((request) => request.url === '/mailsac'), 'the webhook');
		expect(JSON.parse(delivered.body)).toMatchObject({ _id: messageId, subject: 'Invoice 7', inbox });
	});

	it('messages: countMessages, listMessages, getMessageMetadata and the bodies, raw source and headers', async () => {
		const m = mailsac.messages;
		expect((await m.countMessages(inbox)).data).toEqual({ count: 1, inbox });
		expect((await m.listMessages(inbox, { limit: 10 })).data.map((message) => message._id)).toEqual([messageId]);
		expect((await m.getMessageMetadata(inbox, messageId)).data).toMatchObject({ _id: messageId, subject: 'Invoice 7' });
		expect((await m.getBodyPlainText(inbox, messageId)).data).toContain('See [1]');
		expect((await m.getBodySanitized(inbox, messageId)).data).toContain('<a href="https://example.org/invoice"');
		expect((await m.getBodyDirty(inbox, messageId)).data).toContain('<p>See <a href="https://example.org/invoice">it</a></p>');
		expect((await m.getFullRawMessage(inbox, messageId)).data).toContain('Subject: Invoice 7');
		expect((await m.getHeaders(inbox, messageId)).data).toMatchObject({ subject: ['Invoice 7'] });
		expect((await m.getHeaders(inbox, messageId, { messageHeadersFormat: 'plain' })).data).toContain('subject: Invoice 7\r\n');
	});

	it('attachments: listMessageAttachments and downloadAttachment', async () => {
		const [attachment] = (await mailsac.attachments.listMessageAttachments(inbox, messageId)).data as unknown as { checksum: string }[];
		expect(attachment).toMatchObject({ fileName: 'invoice.txt', length: 9 });
		const download = await mailsac.attachments.downloadAttachment(inbox, messageId, attachment.checksum, { format: 'arraybuffer' });
		expect(Buffer.from(download.data as unknown as ArrayBuffer).toString()).toBe('total: 42');
	});

	it('labels, folder, read status and star: the bodiless PUTs', async () => {
		const m = mailsac.messages;
		expect((await m.addMessageLabel(inbox, messageId, 'paid')).data).toEqual({ _id: messageId, labels: ['paid'] });
		expect((await m.deleteMessageLabel(inbox, messageId, 'paid')).data).toEqual({ _id: messageId, labels: [] });
		expect((await m.setMessageFolder(inbox, messageId, MessageFolder.Spam)).data).toEqual({ _id: messageId, folder: 'spam' });
		expect((await m.setMessageReadStatus(inbox, messageId, true)).data).toEqual({ _id: messageId, read: true });
		expect((await m.toggleMessageStar(inbox, messageId)).data).toMatchObject({ _id: messageId, savedBy: account.id });
		expect((await m.listStarredMessages()).data.map((message) => message._id)).toEqual([messageId]);
		expect((await m.toggleMessageStar(inbox, messageId)).data).toMatchObject({ savedBy: null });
	});

	it('account-wide: listInboxMessages, filterInboxMessages, searchInboxMessages', async () => {
		const m = mailsac.messages;
		expect((await m.listInboxMessages({ limit: 5 })).data).toMatchObject({ messages: [{ _id: messageId }], unread: 0, limit: 5 });
		expect((await m.filterInboxMessages({ andSubjectIncludes: 'invoice', andRead: true })).data.messages).toMatchObject([
			{ _id: messageId },
		]);
		expect((await m.searchInboxMessages({ query: 'Invoice' })).data).toMatchObject({ query: 'Invoice', messages: [{ _id: messageId }] });
	});

	it('domains: listDomains, getDomain, listDomainMessages, deleteAllDomainMessages', async () => {
		// Claiming a domain has no method in the client.
		expect((await server.api(`/api/domains/${domain}`, { method: 'POST', key: account.key })).status).toBe(200);
		const [inDomain] = await sendMail(server, { to: `anyone@${domain}`, subject: 'domain mail' });
		expect((await mailsac.domains.listDomains()).data).toMatchObject([{ _id: domain, owner: account.id }]);
		expect((await mailsac.domains.getDomain(domain)).data).toMatchObject({ domain: { _id: domain }, totalMessages: 1 });
		expect((await mailsac.messages.listDomainMessages(domain, { limit: 10 })).data).toMatchObject([{ _id: inDomain }]);
		expect((await mailsac.messages.deleteAllDomainMessages(domain)).status).toBe(204);
		expect((await mailsac.domains.getDomain(domain)).data.totalMessages).toBe(0);
	});

	it('deleting: deleteMessage, deleteAllMessages, and releasing with deleteAddress', async () => {
		const m = mailsac.messages;
		expect((await m.deleteMessage(inbox, messageId)).data).toEqual({ _id: messageId, inbox, message: 'Message was deleted.' });
		await sendMail(server, { to: inbox, subject: 'one more' });
		expect((await m.deleteAllMessages(inbox)).status).toBe(204);
		expect((await m.countMessages(inbox)).data.count).toBe(0);
		expect((await mailsac.addresses.deleteAddress('bulk1@mailsac-client.test', { deleteAddressMessages: true })).data).toMatchObject({
			_id: 'bulk1@mailsac-client.test',
		});
		expect((await mailsac.addresses.checkAvailability('bulk1@mailsac-client.test')).data.available).toBe(true);
	});

	it.each([
		['emailValidation.validateAddress', (client: Mailsac<unknown>) => client.emailValidation.validateAddress(inbox)],
		[
			'emailValidation.validateAddressesBulk',
			(client: Mailsac<unknown>) => client.emailValidation.validateAddressesBulk({ emails: [inbox] }),
		],
		['messageStats.listTopPublicAddresses', (client: Mailsac<unknown>) => client.messageStats.listTopPublicAddresses()],
		['messageStats.listTopPublicSenders', (client: Mailsac<unknown>) => client.messageStats.listTopPublicSenders()],
		['messageStats.listTopPublicDomains', (client: Mailsac<unknown>) => client.messageStats.listTopPublicDomains()],
		['messageStats.denylist', (client: Mailsac<unknown>) => client.messageStats.denylist()],
		['messageStats.checkDenylist', (client: Mailsac<unknown>) => client.messageStats.checkDenylist('example.org')],
		[
			'attachments.listPublicAttachments',
			(client: Mailsac<unknown>) => client.attachments.listPublicAttachments({ startDate: '2026-01-01', endDate: '2026-02-01' }),
		],
		['attachments.countPublicAttachments', (client: Mailsac<unknown>) => client.attachments.countPublicAttachments('0'.repeat(32))],
		['attachments.listMessagesForAttachment', (client: Mailsac<unknown>) => client.attachments.listMessagesForAttachment('0'.repeat(32))],
		['attachments.downloadPublicAttachment', (client: Mailsac<unknown>) => client.attachments.downloadPublicAttachment('0'.repeat(32))],
	])('%s, a Mailsac service Mailroom does not have, gets a plain 404', async (_method, call) => {
		await expect(call(mailsac)).rejects.toMatchObject({
			response: { status: 404, data: { error: 'Not Found', message: expect.stringMatching(/^No route for /) } },
		});
	});
});
