import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { enc, sendMail } from '../../../helpers/messages';
import { nodeJson, startNodeFixture, type NodeFixture } from '../../../helpers/n8n';

/** Message → Reply in n8n-core's real ExecuteContext against a real server: the reply arrives in a local inbox, threaded. */
describe('Mailroom node: Message Reply', () => {
	let fixture: NodeFixture;
	beforeAll(async () => {
		fixture = await startNodeFixture({ account: 'helpdesk', credits: 20 });
		for (const address of ['support@example.test', 'sales@example.test'])
			await fixture.server.addresses.reserve(address, fixture.account.id);
	});
	afterAll(() => fixture.stop());

	const reply = (parameters: INodeParameters, items?: INodeExecutionData[]) =>
		nodeJson(fixture.n8n, { resource: 'message', operation: 'reply', email: 'support@example.test', ...parameters }, { items });
	/** The newest message of an inbox, with its headers. */
	const newest = async (inbox: string) => {
		const { key } = fixture.account;
		const [message] = (await fixture.server.api<MessageRecord[]>(`/api/addresses/${enc(inbox)}/messages?limit=1`, { key })).body;
		const headers = await fixture.server.api<Record<string, string[]>>(`/api/addresses/${enc(inbox)}/messages/${message._id}/headers`, {
			key,
		});
		return { message, headers: headers.body };
	};

	it("replies in the message's thread, to its sender, with Re: and its subject, from the address that received it", async () => {
		const [id] = await sendMail(fixture.server, {
			to: 'support@example.test',
			from: 'Bob <bob@example.test>',
			subject: 'Where is my order?',
			messageId: '<order-question@customer.test>',
		});
		const [sent] = await reply({ messageId: id, emailFormat: 'both', text: 'It ships today.', html: '<p>It ships <b>today</b>.</p>' });
		expect(sent).toMatchObject({
			from: 'support@example.test',
			to: ['bob@example.test'],
			subject: 'Re: Where is my order?',
			inReplyTo: id,
			status: 'delivered',
			creditsRemaining: 19,
		});
		const { message, headers } = await newest('bob@example.test');
		expect(message).toMatchObject({ subject: 'Re: Where is my order?', from: [{ address: 'support@example.test' }] });
		expect(headers['in-reply-to']).toEqual(['<order-question@customer.test>']);
		expect(headers.references?.join(' ')).toContain('<order-question@customer.test>');
		const html = await fixture.server.api(`/api/dirty/bob%40example.test/${message._id}`, { key: fixture.account.key });
		expect(html.text).toBe('<p>It ships <b>today</b>.</p>');
	});

	it('takes the options of Send: another sender with a name, a copy and an attachment from binary data', async () => {
		const [id] = await sendMail(fixture.server, { to: 'support@example.test', from: 'carol@example.test', subject: 'Quote?' });
		const quote = Buffer.from('quote: 3 boxes, 42 EUR\n');
		const items = [{ json: {}, binary: { quote: { data: quote.toString('base64'), mimeType: 'text/csv', fileName: 'quote.csv' } } }];
		const [sent] = await reply(
			{
				messageId: id,
				text: 'Our quote is attached.',
				options: { from: 'sales@example.test', senderName: 'Sales Team', ccEmail: 'archive@example.test', attachments: 'quote' },
			},
			items,
		);
		expect(sent).toMatchObject({ to: ['carol@example.test'], cc: ['archive@example.test'], subject: 'Re: Quote?', creditsRemaining: 17 });
		for (const inbox of ['carol@example.test', 'archive@example.test']) {
			const { message } = await newest(inbox);
			expect(message).toMatchObject({ subject: 'Re: Quote?', from: [{ address: 'sales@example.test', name: 'Sales Team' }] });
			const file = await fixture.server.api(`/api/addresses/${enc(inbox)}/messages/${message._id}/attachments/quote.csv`, {
				key: fixture.account.key,
			});
			expect(Buffer.from(file.text)).toEqual(quote);
			// A plain attachment: the reply's HTML (none) refers to it by no cid:.
			const raw = await fixture.server.api(`/api/raw/${enc(inbox)}/${message._id}`, { key: fixture.account.key });
			expect(raw.text).toMatch(/^Content-Disposition: attachment; filename=quote\.csv/m);
			expect(raw.text).not.toMatch(/^Content-ID:/im);
		}
	});

	it('a refused option is named as the node names it', async () => {
		const [id] = await sendMail(fixture.server, { to: 'support@example.test', from: 'gina@example.test', subject: 'Copy?' });
		await expect(reply({ messageId: id, text: 'x', options: { bccEmail: 'nope' } })).rejects.toMatchObject({
			httpCode: '400',
			message: 'BCC: "nope" is not an email address',
		});
	});

	it("Reply All: the message's other To and CC recipients too, but the account's own addresses", async () => {
		const [id] = await sendMail(fixture.server, {
			to: ['support@example.test', 'dan@example.test'],
			cc: ['sales@example.test', 'erin@example.test'],
			from: 'frank@example.test',
			subject: 'Team lunch',
		});
		const [sent] = await reply({ messageId: id, replyAll: true, text: 'Count me in.' });
		expect(sent).toMatchObject({ to: ['frank@example.test', 'dan@example.test'], cc: ['erin@example.test'], subject: 'Re: Team lunch' });
		const [alone] = await reply({ messageId: id, text: 'Just you.' });
		expect(alone).toMatchObject({ to: ['frank@example.test'], cc: [] });
	});

	it("a message the account does not hold: the server's error", async () => {
		await expect(reply({ messageId: 'NoSuchMessage1', text: 'hi' })).rejects.toMatchObject({ name: 'NodeApiError' });
	});
});
