import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom, type TestMailroom } from '../../../helpers/mailroom';
import { expectError, sendMail } from '../../../helpers/messages';
import { INBOXES, seedInboxes, type SeededInboxes } from '../../../helpers/inboxes';

/** What GET /api/addresses/:email/message-count answers. */
interface MessageCount {
	count: number;
	inbox: string;
}

describe('Messages API: inbox listing, message text, count and deletion', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom();
	});
	afterAll(() => server.stop());

	/** Sends `count` messages to `inbox`, `parallel` SMTP transactions at a time; returns their ids. */
	async function fill(inbox: string, count: number, parallel = 10): Promise<string[]> {
		const ids: string[] = [];
		for (let start = 0; start < count; start += parallel) {
			const batch = Array.from({ length: Math.min(parallel, count - start) }, (_, i) =>
				server.send({ from: 'bulk@sender.test', to: inbox, subject: `message ${start + i}`, text: `body ${start + i}` }),
			);
			for (const info of await Promise.all(batch)) ids.push(/stored as (\S+)/.exec(info.response)![1]);
		}
		return ids;
	}

	describe('GET /api/addresses/:email/messages', () => {
		const bulk = 'bulk@example.test';
		let bulkIds: string[];
		beforeAll(async () => {
			bulkIds = await fill(bulk, 105);
		});

		it('lists newest first', async () => {
			for (const subject of ['first', 'second', 'third'])
				await server.send({ from: 'a@sender.test', to: 'order@example.test', subject, text: subject });
			const list = await server.api<MessageRecord[]>('/api/addresses/order@example.test/messages');
			expect(list.status).toBe(200);
			expect(list.body.map((message) => message.subject)).toEqual(['third', 'second', 'first']);
			const times = list.body.map((message) => Date.parse(message.received));
			expect([...times].sort((a, b) => b - a)).toEqual(times);
		});

		it('returns 100 messages by default and at most `limit`', async () => {
			expect((await server.api(`/api/addresses/${bulk}/messages`)).body).toHaveLength(100);
			expect((await server.api(`/api/addresses/${bulk}/messages?limit=3`)).body).toHaveLength(3);
			expect((await server.api(`/api/addresses/${bulk}/messages?limit=1000`)).body).toHaveLength(105);
		});

		it.each(['1001', '0', '-1', 'abc', '2.5'])('refuses limit=%s with a 400 naming the field', async (limit) => {
			expectError(await server.api(`/api/addresses/${bulk}/messages?limit=${limit}`), 400, /limit/);
		});

		it.each(['yesterday', '2026-13-45T00:00:00Z', '1700000000000'])('refuses until=%s with a 400 naming the field', async (until) => {
			expectError(await server.api(`/api/addresses/${bulk}/messages?until=${encodeURIComponent(until)}`), 400, /until/);
		});

		it('pages with `until` through every message exactly once, newest first', async () => {
			const seen: string[] = [];
			let until: string | undefined;
			for (let page = 0; page < 50; page++) {
				const query = until === undefined ? 'limit=7' : `limit=7&until=${encodeURIComponent(until)}`;
				const response = await server.api<MessageRecord[]>(`/api/addresses/${bulk}/messages?${query}`);
				expect(response.status).toBe(200);
				if (response.body.length === 0) break;
				seen.push(...response.body.map((message) => message._id));
				until = response.body[response.body.length - 1].received;
			}
			expect(new Set(seen).size).toBe(seen.length);
			expect([...seen].sort()).toEqual([...bulkIds].sort());
			const all = (await server.api<MessageRecord[]>(`/api/addresses/${bulk}/messages?limit=1000`)).body.map((message) => message._id);
			expect(seen).toEqual(all);
		});

		it('keeps only messages received before `until`', async () => {
			const all = (await server.api<MessageRecord[]>(`/api/addresses/${bulk}/messages?limit=1000`)).body;
			const cut = all[50].received;
			const older = (await server.api<MessageRecord[]>(`/api/addresses/${bulk}/messages?limit=1000&until=${encodeURIComponent(cut)}`)).body;
			expect(older.length).toBeGreaterThan(0);
			expect(older.every((message) => message.received < cut)).toBe(true);
			expect(older.length).toBe(all.filter((message) => message.received < cut).length);
			expect((await server.api(`/api/addresses/${bulk}/messages?until=2000-01-01T00:00:00.000Z`)).body).toEqual([]);
		});

		it('sends each record byte for byte as the single-record route serialises it, with the same content type', async () => {
			const inbox = 'bytes@example.test';
			await server.send({
				from: '"Ann \\"Q\\" Lee" <ann@sender.test>',
				to: inbox,
				cc: 'Cé <c@sender.test>',
				subject: 'tab\there, ünï ✓ "quoted" \\',
				text: 'see https://example.org/x?a=1&b=2',
				attachments: [{ filename: 'a.txt', content: 'attached' }],
			});
			await server.send({ from: 'b@sender.test', to: inbox, subject: '', text: 'second' });
			const list = await server.api<MessageRecord[]>(`/api/addresses/${inbox}/messages`);
			const ids = list.body.map((message) => message._id);
			expect(ids).toHaveLength(2);
			await server.api(`/api/addresses/${inbox}/messages/${ids[1]}/read/true`, { method: 'PUT' });
			await server.api(`/api/addresses/${inbox}/messages/${ids[1]}/labels/l%22x`, { method: 'PUT' });
			const after = await server.api<MessageRecord[]>(`/api/addresses/${inbox}/messages`);
			const one = await Promise.all(ids.map((id) => server.api(`/api/addresses/${inbox}/messages/${id}`)));
			expect(after.text).toBe(`[${one.map((response) => response.text).join(',')}]`);
			expect(after.headers.get('content-type')).toBe(one[0].headers.get('content-type'));
			expect(after.body[1]).toMatchObject({ read: true, labels: ['l"x'] });
		});

		it('returns [] for an inbox with no mail', async () => {
			const response = await server.api('/api/addresses/nobody-writes@example.test/messages');
			expect(response.status).toBe(200);
			expect(response.body).toEqual([]);
		});
	});

	describe('GET /api/text/:email/:messageId', () => {
		let id: string;
		beforeAll(async () => {
			const info = await server.send({
				from: 'a@sender.test',
				to: 'text@example.test',
				subject: 'text',
				text: 'Go to https://example.org/a and https://example.org/b, then https://example.org/a again.',
			});
			id = /stored as (\S+)/.exec(info.response)![1];
		});

		it('serves text/plain with numbered links listed at the end', async () => {
			const response = await server.api(`/api/text/text%40example.test/${id}`);
			expect(response.status).toBe(200);
			expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
			expect(response.text).toBe('Go to [1] and [2], then [1] again.\n\n\n\n[1] https://example.org/a\n[2] https://example.org/b\n');
		});

		it('gives a JSON 404 for an unknown message, and for a message of another inbox', async () => {
			expectError(await server.api('/api/text/text@example.test/NoSuchMessage123'), 404, /NoSuchMessage123/);
			expectError(await server.api(`/api/text/other@example.test/${id}`), 404);
		});
	});

	describe('message-count, one message and deletion, by kind of inbox', () => {
		let owner: SeededInboxes['owner'];
		let other: SeededInboxes['other'];
		let ids: SeededInboxes['ids'];
		const inboxes = INBOXES;
		beforeAll(async () => {
			({ owner, other, ids } = await seedInboxes(server));
		});

		it('GET message-count counts an inbox and follows the same access rules', async () => {
			expect((await server.api<MessageCount>(`/api/addresses/${inboxes.public}/message-count`)).body).toEqual({
				count: 1,
				inbox: inboxes.public,
			});
			expect((await server.api<MessageCount>('/api/addresses/NOBODY@example.test/message-count')).body).toEqual({
				count: 0,
				inbox: 'nobody@example.test',
			});
			expectError(await server.api(`/api/addresses/${inboxes.reserved}/message-count`), 401);
			expectError(await server.api(`/api/addresses/${inboxes.reserved}/message-count`, { key: other.key }), 403);
			expect((await server.api<MessageCount>(`/api/addresses/${inboxes.reserved}/message-count`, { key: owner.key })).body.count).toBe(1);
			expectError(await server.api('/api/addresses/nope/message-count'), 400);
		});

		it('GET one message returns the full record', async () => {
			const response = await server.api<MessageRecord>(`/api/addresses/${inboxes.public}/messages/${ids.public}`);
			expect(response.body).toMatchObject({
				_id: ids.public,
				inbox: inboxes.public,
				subject: 'hello',
				attachments: [expect.stringMatching(/^[0-9a-f]{32}$/)],
			});
			const [listed] = (await server.api<MessageRecord[]>(`/api/addresses/${inboxes.public}/messages`)).body;
			expect(response.body).toEqual(listed);
		});

		it('DELETE one message: public mail without a key, private mail only by its owner', async () => {
			const [id] = await sendMail(server, { to: inboxes.public });
			expect((await server.api(`/api/addresses/${inboxes.public}/messages/${id}`, { method: 'DELETE' })).body).toEqual({
				_id: id,
				inbox: inboxes.public,
				message: 'Message was deleted.',
			});
			expectError(await server.api(`/api/addresses/${inboxes.public}/messages/${id}`, { method: 'DELETE' }), 404);
			const [privateId] = await sendMail(server, { to: inboxes.reserved });
			const url = `/api/addresses/${inboxes.reserved}/messages/${privateId}`;
			expectError(await server.api(url, { method: 'DELETE' }), 401);
			expectError(await server.api(url, { method: 'DELETE', key: other.key }), 403);
			expect((await server.api(url, { method: 'DELETE', key: owner.key })).status).toBe(200);
			expectError(await server.api(`/api/addresses/${inboxes.public}/messages/bad!id`, { method: 'DELETE' }), 400);
		});

		it('DELETE a whole inbox: only an owned inbox, starred messages kept', async () => {
			const inbox = 'empty-me@owned.test';
			const [starred, plain] = [(await sendMail(server, { to: inbox }))[0], (await sendMail(server, { to: inbox }))[0]];
			await server.api(`/api/addresses/${inbox}/messages/${starred}/star`, { method: 'PUT', key: owner.key });
			expectError(await server.api(`/api/addresses/${inbox}/messages`, { method: 'DELETE' }), 401);
			expectError(await server.api(`/api/addresses/${inbox}/messages`, { method: 'DELETE', key: other.key }), 403);
			expectError(
				await server.api(`/api/addresses/${inboxes.public}/messages`, { method: 'DELETE', key: owner.key }),
				403,
				/not a private address/,
			);
			expectError(await server.api('/api/addresses/bad/messages', { method: 'DELETE', key: owner.key }), 400);
			const response = await server.api(`/api/addresses/${inbox}/messages`, { method: 'DELETE', key: owner.key });
			expect([response.status, response.text]).toEqual([204, '']);
			const left = (await server.api<MessageRecord[]>(`/api/addresses/${inbox}/messages`, { key: owner.key })).body.map((m) => m._id);
			expect(left).toEqual([starred]);
			expect(left).not.toContain(plain);
		});
	});
});
