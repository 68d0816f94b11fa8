import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { OutgoingRecord } from 'mailroom-server/dist/schemas/outgoing';
import type { Thread } from 'mailroom-server/dist/schemas/thread';
import type { WebhookPayload } from 'mailroom-server/dist/payload/webhook-payload';
import { startTestMailroom, type TestMailroom } from '../../../helpers/mailroom';
import { enc, expectError, nextMillisecond, omit, sendMail } from '../../../helpers/messages';
import { postOutgoing, senderAccount } from '../../../helpers/outgoing';

/**
 * Conversations end to end, through SMTP and the API of one server: mail that answers other mail shares its threadId
 * within one account (or among public inboxes), replies sent through the API join it, and GET /api/threads/:threadId
 * lists a thread's received and sent messages oldest first to its owner only.
 */
describe('threads', () => {
	let server: TestMailroom;
	let alice: { id: string; key: string };
	let bob: { id: string; key: string };
	beforeAll(async () => {
		// No relay and every domain accepted: replies to any address stay here, in its inbox.
		server = await startTestMailroom();
		alice = await senderAccount(server, 'alice', 'alice@shop.test', 100);
		expect((await server.api('/api/addresses/sales@shop.test', { method: 'POST', key: alice.key })).status).toBe(200);
		bob = await senderAccount(server, 'bob', 'bob@other.test', 10);
	});
	afterAll(() => server.stop());

	const keyOf = (inbox: string) => (inbox.endsWith('@shop.test') ? alice.key : inbox.endsWith('@other.test') ? bob.key : undefined);
	const record = async (inbox: string, id: string) =>
		(await server.api<MessageRecord>(`/api/addresses/${enc(inbox)}/messages/${id}`, { key: keyOf(inbox) })).body;
	const threadOf = async (inbox: string, id: string) => (await record(inbox, id)).threadId;
	const thread = (id: string, key?: string, query = '') => server.api<Thread>(`/api/threads/${id}${query}`, { key });
	/** The newest record of an inbox. */
	const newest = async (inbox: string) =>
		(await server.api<MessageRecord[]>(`/api/addresses/${enc(inbox)}/messages?limit=1`, { key: keyOf(inbox) })).body[0];

	/** Question and answer over SMTP, from a customer: one message to alice, bob and a public inbox, then replies. */
	const conversation = {} as Record<'question' | 'answer' | 'followUp' | 'unrelated', string> & { bob: string; public: string };
	beforeAll(async () => {
		const ids = await sendMail(server, {
			from: 'customer@public.test',
			to: ['alice@shop.test', 'bob@other.test', 'pub@public.test'],
			subject: 'Where is my parcel?',
			messageId: '<q1@customer.test>',
		});
		[conversation.question, conversation.bob, conversation.public] = ids;
		[conversation.answer] = await sendMail(server, {
			from: 'customer@public.test',
			to: 'alice@shop.test',
			subject: 'Re: Where is my parcel?',
			messageId: '<q2@customer.test>',
			inReplyTo: '<q1@customer.test>',
			references: ['<q1@customer.test>'],
		});
		// Names only the message it answers (no References): found by that message's Message-ID.
		[conversation.followUp] = await sendMail(server, {
			from: 'customer@public.test',
			to: 'alice@shop.test',
			subject: 'Still nothing',
			messageId: '<q3@customer.test>',
			inReplyTo: '<q2@customer.test>',
		});
		[conversation.unrelated] = await sendMail(server, { from: 'customer@public.test', to: 'alice@shop.test', subject: 'Another matter' });
	});

	it('gives messages that answer one another one threadId, in every record the API shows', async () => {
		const inbox = 'alice@shop.test';
		const threadId = await threadOf(inbox, conversation.question);
		expect(threadId).toMatch(/^[0-9a-f]{24}$/);
		expect(await threadOf(inbox, conversation.answer)).toBe(threadId);
		expect(await threadOf(inbox, conversation.followUp)).toBe(threadId);
		expect(await threadOf(inbox, conversation.unrelated)).not.toBe(threadId);
		// Listings and search are rendered as JSON by the database: the same threadId.
		const listed = (await server.api<MessageRecord[]>(`/api/addresses/${inbox}/messages`, { key: alice.key })).body;
		expect(Object.fromEntries(listed.map((m) => [m._id, m.threadId]))).toMatchObject({
			[conversation.question]: threadId,
			[conversation.answer]: threadId,
			[conversation.followUp]: threadId,
		});
		const found = await server.api<{ messages: MessageRecord[] }>('/api/inbox-search?query=parcel', { key: alice.key });
		expect(found.body.messages.map((m) => m.threadId)).toEqual([threadId, threadId]);
		const payload = await server.api<WebhookPayload>(`/api/addresses/${inbox}/messages/${conversation.answer}/payload?raw=0`, {
			key: alice.key,
		});
		expect(payload.body.threadId).toBe(threadId);
	});

	it("never joins another account's mail, nor public mail, with the same Message-ID", async () => {
		const ofAlice = await threadOf('alice@shop.test', conversation.question);
		const ofBob = await threadOf('bob@other.test', conversation.bob);
		const ofPublic = await threadOf('pub@public.test', conversation.public);
		expect(new Set([ofAlice, ofBob, ofPublic]).size).toBe(3);
		// A reply to bob joins bob's thread of the message, not alice's.
		const [reply] = await sendMail(server, {
			from: 'customer@public.test',
			to: 'bob@other.test',
			messageId: '<q1-bob@customer.test>',
			inReplyTo: '<q1@customer.test>',
			references: ['<q1@customer.test>'],
		});
		expect(await threadOf('bob@other.test', reply)).toBe(ofBob);
	});

	it('joins a reply sent through the API (inReplyTo) to the thread, with its local copy in the account', async () => {
		const threadId = await threadOf('alice@shop.test', conversation.question);
		const sent = await postOutgoing(server, alice.key, {
			from: 'alice@shop.test',
			inReplyTo: conversation.answer,
			cc: 'sales@shop.test',
			text: 'It left our warehouse today.',
		});
		expect(sent.status).toBe(200);
		expect(sent.body).toMatchObject({ to: ['customer@public.test'], threadId, status: 'delivered' });
		expect((await newest('sales@shop.test')).threadId).toBe(threadId);
		// The customer's copy is public mail: it joins the public thread of the message it answers.
		expect((await newest('customer@public.test')).threadId).toBe(await threadOf('pub@public.test', conversation.public));

		const listed = await thread(threadId, alice.key);
		expect(listed.status).toBe(200);
		expect(listed.body.threadId).toBe(threadId);
		expect(listed.body.next).toBeNull();
		const copy = await newest('sales@shop.test');
		expect(listed.body.messages.map((m) => [m.type, m._id])).toEqual([
			['received', conversation.question],
			['received', conversation.answer],
			['received', conversation.followUp],
			['sent', sent.body._id],
			['received', copy._id],
		]);
		expect(listed.body.messages[0]).toEqual({ type: 'received', ...(await record('alice@shop.test', conversation.question)) });
		expect(listed.body.messages[3]).toEqual({ type: 'sent', ...omit(sent.body, 'creditsRemaining', 'warnings', 'id') });
	});

	it('makes a forward sent mail of the thread of the message it forwards', async () => {
		const threadId = await threadOf('alice@shop.test', conversation.question);
		const forwarding = (forward: string | null) =>
			server.api('/api/addresses/sales@shop.test', { method: 'PUT', key: alice.key, body: { forward } });
		expect((await forwarding('archive@public.test')).status).toBe(200);
		const [id] = await sendMail(server, {
			from: 'customer@public.test',
			to: 'sales@shop.test',
			messageId: '<q4@customer.test>',
			inReplyTo: '<q1@customer.test>',
			references: ['<q1@customer.test>'],
		});
		expect((await forwarding(null)).status).toBe(200);
		expect(await threadOf('sales@shop.test', id)).toBe(threadId);
		const [forward] = (await server.api<OutgoingRecord[]>('/api/outgoing-messages?limit=1', { key: alice.key })).body;
		expect(forward).toMatchObject({ to: ['archive@public.test'], threadId });
	});

	it("answers a thread to its account's key only: 404 for another account's and for none", async () => {
		const ofAlice = await threadOf('alice@shop.test', conversation.question);
		expectError(await thread(ofAlice, bob.key), 404, /No thread/);
		expectError(await thread(ofAlice), 404, /owner's key/);
		expectError(await thread('0123456789abcdef01234567', alice.key), 404);
		expectError(await thread('not!an!id', alice.key), 400);
		const ofBob = await thread(await threadOf('bob@other.test', conversation.bob), bob.key);
		expect(ofBob.body.messages.map((m) => m._id)).toContain(conversation.bob);
		// A thread of public inboxes is open to all, as those inboxes are.
		const publicThread = await thread(await threadOf('pub@public.test', conversation.public));
		expect(publicThread.status).toBe(200);
		expect(publicThread.body.messages[0]).toMatchObject({ type: 'received', _id: conversation.public, inbox: 'pub@public.test' });
	});

	it('joins a reply that arrives before its original once the original comes', async () => {
		const [reply] = await sendMail(server, {
			to: 'alice@shop.test',
			messageId: '<late-2@x.test>',
			inReplyTo: '<late-1@x.test>',
			references: ['<late-1@x.test>'],
		});
		await nextMillisecond();
		const [original] = await sendMail(server, { to: 'alice@shop.test', messageId: '<late-1@x.test>' });
		const threadId = await threadOf('alice@shop.test', original);
		expect(await threadOf('alice@shop.test', reply)).toBe(threadId);
		expect((await thread(threadId, alice.key)).body.messages.map((m) => m._id)).toEqual([reply, original]);
	});

	it('pages a thread oldest first with next and after, within limit', async () => {
		const threadId = await threadOf('alice@shop.test', conversation.question);
		const all = (await thread(threadId, alice.key)).body.messages.map((m) => m._id);
		const paged: string[] = [];
		let after = '';
		for (let pages = 0; ; pages++) {
			const page = await thread(threadId, alice.key, `?limit=2${after && `&after=${after}`}`);
			expect(page.status).toBe(200);
			expect(page.body.messages.length).toBeLessThanOrEqual(2);
			paged.push(...page.body.messages.map((m) => m._id));
			if (page.body.next === null) break;
			after = page.body.next;
			expect(pages).toBeLessThan(all.length);
		}
		expect(paged).toEqual(all);
		expectError(await thread(threadId, alice.key, '?after=yesterday'), 400, /after/, 'after');
		expectError(await thread(threadId, alice.key, '?limit=1001'), 400, /limit/, 'limit');
	});

	it('replies to all: the original To and Cc recipients too, but for the account’s own addresses', async () => {
		const [original] = await sendMail(server, {
			from: 'erin@public.test',
			to: ['alice@shop.test', 'dave@public.test'],
			cc: ['sales@shop.test', 'carol@public.test'],
			subject: 'Meeting',
		});
		const sent = await postOutgoing(server, alice.key, { from: 'alice@shop.test', inReplyTo: original, replyAll: true, text: 'Fine.' });
		expect(sent.status).toBe(200);
		expect(sent.body).toMatchObject({ to: ['erin@public.test', 'dave@public.test'], cc: ['carol@public.test'], subject: 'Re: Meeting' });
		const alone = await postOutgoing(server, alice.key, { from: 'alice@shop.test', to: 'x@public.test', replyAll: true, text: 'Hi' });
		expectError(alone, 400, /inReplyTo/, 'replyAll');
	});
});
