import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { expectError } from '../../helpers/messages';

/**
 * The path parameters of the message routes: :email (emailParam, and the router's decoding and length limit) and
 * :messageId (MessageParams in schemas.ts), through GET /api/addresses/:email/messages and GET /api/text/:email/:messageId.
 */
describe('path parameters', () => {
	let server: TestMailroom;
	/** A message of text@example.test. */
	let id: string;
	beforeAll(async () => {
		server = await startTestMailroom();
		const info = await server.send({
			from: 'a@sender.test',
			to: 'text@example.test',
			subject: 'text',
			text: 'Go to https://example.org/a and https://example.org/b, then https://example.org/a again.',
		});
		id = /stored as (\S+)/.exec(info.response)![1];
	});
	afterAll(() => server.stop());

	describe(':email', () => {
		it('accepts the address with %40 or a raw @, in any case, and lower-cases it', async () => {
			await server.send({ from: 'a@sender.test', to: 'Mixed.Case@Example.TEST', subject: 'case', text: 'case' });
			const paths = ['mixed.case%40example.test', 'mixed.case@example.test', 'MIXED.Case@EXAMPLE.test', 'Mixed.Case%40Example.TEST'];
			const lists = await Promise.all(paths.map((path) => server.api<MessageRecord[]>(`/api/addresses/${path}/messages`)));
			for (const list of lists) {
				expect(list.status).toBe(200);
				expect(list.body).toHaveLength(1);
				expect(list.body[0]).toMatchObject({ inbox: 'mixed.case@example.test', _id: lists[0].body[0]._id });
			}
			const id = lists[0].body[0]._id;
			for (const path of paths) expect((await server.api(`/api/text/${path}/${id}`)).text.trim()).toBe('case');
		});

		it('serves an address of the greatest length SMTP accepts, and refuses a longer one', async () => {
			const longest = `${'l'.repeat(64)}@${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(55)}.test`;
			expect(longest).toHaveLength(253);
			await server.send({ from: 'a@sender.test', to: longest, subject: 'long', text: 'long' });
			for (const path of [longest, encodeURIComponent(longest), longest.replace(/./g, (c) => `%${c.charCodeAt(0).toString(16)}`)]) {
				const list = await server.api<MessageRecord[]>(`/api/addresses/${path}/messages`);
				expect(list.status).toBe(200);
				expect(list.body.map((message) => message.subject)).toEqual(['long']);
			}
			const tooLong = `${'l'.repeat(64)}@${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(57)}.test`;
			expect(tooLong).toHaveLength(255);
			expectError(await server.api(`/api/addresses/${tooLong}/messages`), 400, /email/);
		});

		it.each(['not-an-address', 'a@b@c.test', '@example.test', 'user@', '%22quoted%22@example.test', 'a%20b@example.test'])(
			'refuses the invalid address %s with a 400 naming the field',
			async (path) => {
				expectError(await server.api(`/api/addresses/${path}/messages`), 400, /email/);
			},
		);

		it.each([
			['a bad percent-escape', '%ZZ@example.test'],
			['a truncated UTF-8 escape', 'a%E0%A4%A@example.test'],
			['2000 characters', 'x'.repeat(2000)],
		])('answers an address with %s with a JSON 4xx, never a 500', async (_label, email) => {
			for (const path of [`/api/addresses/${email}/messages`, `/api/text/${email}/${id}`]) {
				const response = await server.api(path);
				expect([400, 404, 414]).toContain(response.status);
				expectError(response, response.status);
			}
		});
	});

	describe(':messageId', () => {
		it.each([
			['a path traversal', '..%2F..%2Fetc%2Fpasswd'],
			['an encoded parent folder', '%2e%2e'],
			['a bad percent-escape', '%ZZ'],
			['a lone percent sign', '%'],
			['a NUL byte', '%00'],
			['a space', 'abc%20def'],
			['UTF-8 letters', '%C3%A9t%C3%A9'],
			['an emoji', '%F0%9F%92%A9'],
			['invalid UTF-8', '%FF%FE'],
			['65 characters', 'x'.repeat(65)],
			['2000 characters', 'x'.repeat(2000)],
			['a semicolon', 'a;b'],
			['SQL', "'%20OR%201=1--"],
		])('answers a message id with %s with a JSON 4xx, never a 500', async (_label, messageId) => {
			const response = await server.api(`/api/text/text@example.test/${messageId}`);
			expect([400, 404, 414]).toContain(response.status);
			expectError(response, response.status);
			expect(response.headers.get('content-type')).toMatch(/^application\/json/);
			expect(response.text).not.toMatch(/root:|stack|at .*\.js/);
		});
	});
});
