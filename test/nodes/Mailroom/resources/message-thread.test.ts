import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INodeParameters } from 'n8n-workflow';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { enc, sendMail } from '../../../helpers/messages';
import { nodeJson, startNodeFixture, type NodeFixture } from '../../../helpers/n8n';

/** Message → Get Thread in n8n-core's real ExecuteContext against a real server: a conversation received and answered. */
describe('Mailroom node: Message Get Thread', () => {
	let fixture: NodeFixture;
	const inbox = 'support@example.test';
	/** The question, the customer's follow-up, and the node's reply to it. */
	const thread = {} as { question: string; followUp: string; reply: string; threadId: string };

	beforeAll(async () => {
		fixture = await startNodeFixture({ account: 'helpdesk', credits: 5 });
		await fixture.server.addresses.reserve(inbox, fixture.account.id);
		[thread.question] = await sendMail(fixture.server, {
			to: inbox,
			from: 'bob@example.org',
			subject: 'Broken zipper',
			messageId: '<zipper-1@example.org>',
		});
		[thread.followUp] = await sendMail(fixture.server, {
			to: inbox,
			from: 'bob@example.org',
			subject: 'Re: Broken zipper',
			messageId: '<zipper-2@example.org>',
			inReplyTo: '<zipper-1@example.org>',
			references: ['<zipper-1@example.org>'],
		});
		const [sent] = await nodeJson(fixture.n8n, {
			resource: 'message',
			operation: 'reply',
			email: inbox,
			messageId: thread.followUp,
			text: 'A new one is on its way.',
		});
		thread.reply = sent._id as string;
		thread.threadId = sent.threadId as string;
	});
	afterAll(() => fixture.stop());

	const getThread = (parameters: INodeParameters) => nodeJson(fixture.n8n, { resource: 'message', operation: 'getThread', ...parameters });

	it('outputs the thread of a message, one item per message oldest first, the reply the node sent among them', async () => {
		const items = await getThread({ email: inbox, messageId: thread.question, returnAll: true });
		expect(items.map((item) => [item.type, item._id])).toEqual([
			['received', thread.question],
			['received', thread.followUp],
			['sent', thread.reply],
		]);
		const record = await fixture.server.api<MessageRecord>(`/api/addresses/${enc(inbox)}/messages/${thread.question}`, {
			key: fixture.account.key,
		});
		expect(items[0]).toEqual({ type: 'received', ...record.body });
		expect(items[2]).toMatchObject({ threadId: thread.threadId, inReplyTo: thread.followUp, to: ['bob@example.org'] });
	});

	it('takes the thread by its ID, up to Limit, paging through the thread', async () => {
		const items = await getThread({ threadOf: 'threadId', threadId: thread.threadId, limit: 2 });
		expect(items.map((item) => item._id)).toEqual([thread.question, thread.followUp]);
	});

	it("fails with the server's 404 for a thread the account does not have", async () => {
		await expect(getThread({ threadOf: 'threadId', threadId: '0123456789abcdef01234567' })).rejects.toMatchObject({
			name: 'NodeApiError',
			httpCode: '404',
		});
	});
});
