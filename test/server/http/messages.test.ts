import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { expectError, sendMail } from '../../helpers/messages';
import { SpoolingPair } from '../../helpers/spooling-pair';
import { readWhileDeleted } from '../../helpers/deleted-while-read';

describe('inbox listing and message text', () => {
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
			const list = await server.api('/api/addresses/order@example.test/messages');
			expect(list.status).toBe(200);
			expect(list.body.map((message: { subject: string }) => message.subject)).toEqual(['third', 'second', 'first']);
			const times = list.body.map((message: { received: string }) => Date.parse(message.received));
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
				const response = await server.api(`/api/addresses/${bulk}/messages?${query}`);
				expect(response.status).toBe(200);
				if (response.body.length === 0) break;
				seen.push(...response.body.map((message: { _id: string }) => message._id));
				until = response.body[response.body.length - 1].received;
			}
			expect(new Set(seen).size).toBe(seen.length);
			expect([...seen].sort()).toEqual([...bulkIds].sort());
			const all = (await server.api(`/api/addresses/${bulk}/messages?limit=1000`)).body.map((message: { _id: string }) => message._id);
			expect(seen).toEqual(all);
		});

		it('keeps only messages received before `until`', async () => {
			const all = (await server.api(`/api/addresses/${bulk}/messages?limit=1000`)).body as { _id: string; received: string }[];
			const cut = all[50].received;
			const older = (await server.api(`/api/addresses/${bulk}/messages?limit=1000&until=${encodeURIComponent(cut)}`)).body as {
				received: string;
			}[];
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
			const list = await server.api(`/api/addresses/${inbox}/messages`);
			const ids = list.body.map((message: { _id: string }) => message._id);
			expect(ids).toHaveLength(2);
			await server.api(`/api/addresses/${inbox}/messages/${ids[1]}/read/true`, { method: 'PUT' });
			await server.api(`/api/addresses/${inbox}/messages/${ids[1]}/labels/l%22x`, { method: 'PUT' });
			const after = await server.api(`/api/addresses/${inbox}/messages`);
			const one = await Promise.all(ids.map((id: string) => server.api(`/api/addresses/${inbox}/messages/${id}`)));
			expect(after.text).toBe(`[${one.map((response) => response.text).join(',')}]`);
			expect(after.headers.get('content-type')).toBe(one[0].headers.get('content-type'));
			expect(after.body[1]).toMatchObject({ read: true, labels: ['l"x'] });
		});

		it('returns [] for an inbox with no mail', async () => {
			const response = await server.api('/api/addresses/nobody-writes@example.test/messages');
			expect(response.status).toBe(200);
			expect(response.body).toEqual([]);
		});

		it('accepts the address with %40 or a raw @, in any case, and lower-cases it', async () => {
			await server.send({ from: 'a@sender.test', to: 'Mixed.Case@Example.TEST', subject: 'case', text: 'case' });
			const paths = ['mixed.case%40example.test', 'mixed.case@example.test', 'MIXED.Case@EXAMPLE.test', 'Mixed.Case%40Example.TEST'];
			const lists = await Promise.all(paths.map((path) => server.api(`/api/addresses/${path}/messages`)));
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
				const list = await server.api(`/api/addresses/${path}/messages`);
				expect(list.status).toBe(200);
				expect(list.body.map((message: { subject: string }) => message.subject)).toEqual(['long']);
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

	describe('errors', () => {
		it('gives a JSON 404 for an unknown route or method', async () => {
			expectError(await server.api('/api/no-such-thing'), 404, /GET \/api\/no-such-thing/);
			expectError(await server.api('/api/me', { method: 'PATCH' }), 404);
		});

		it('gives a JSON 400 for a body that is not valid JSON', async () => {
			const owner = server.createAccount('json-errors');
			await server.api('/api/addresses/json@example.test', { method: 'POST', key: owner.key });
			const response = await server.api('/api/private-address-forwarding/json@example.test', {
				method: 'PUT',
				key: owner.key,
				body: '{"webhook": ',
			});
			expectError(response, 400, /JSON/);
		});

		it('gives a JSON 413 for a body over 1 MB', async () => {
			const owner = server.createAccount('big-bodies');
			await server.api('/api/addresses/big@example.test', { method: 'POST', key: owner.key });
			const body = JSON.stringify({ webhook: `https://example.org/${'x'.repeat(1024 * 1024)}` });
			expectError(await server.api('/api/private-address-forwarding/big@example.test', { method: 'PUT', key: owner.key, body }), 413);
			// a body just under the limit is read (and then validated)
			const almost = JSON.stringify({ webhook: `https://example.org/${'x'.repeat(1000 * 1000)}` });
			expectError(
				await server.api('/api/private-address-forwarding/big@example.test', { method: 'PUT', key: owner.key, body: almost }),
				400,
				/webhook/,
			);
		});
	});
});

describe('GET /api/text of a large message (its text stored in pieces)', () => {
	let pair: SpoolingPair;
	beforeAll(async () => {
		pair = await SpoolingPair.start();
	});
	afterAll(() => pair.stop());

	// Multi-byte characters on every line, so the 1 MB pieces cut through them; about 2.3 MB in all.
	const line = (i: number) => `Zürich 😀 “line” ${i} & <b> "quoted"\n`;

	it('streams a text without links as stored, the same bytes and headers as the same message kept in memory', async () => {
		const text = Array.from({ length: 50_000 }, (_, i) => line(i)).join('');
		const ids = await pair.send({ to: 'large@example.test', subject: 'large text', text });
		expect(pair.bodyPieces(ids[0], 'text')).toBeGreaterThan(1);
		const response = await pair.sameResponse(ids, (id) => `/api/text/large@example.test/${id}`);
		expect(response.status).toBe(200);
		expect(response.contentType).toBe('text/plain; charset=utf-8');
		expect(response.bytes.toString().trim()).toBe(text.trim());
	});

	it('streams a text with links numbered, trailing blanks dropped before the list, as numbering it whole does', async () => {
		const text = `${Array.from({ length: 50_000 }, (_, i) => (i % 1000 === 999 ? `see https://example.org/${i % 3000}?q=é ` : '') + line(i)).join('')}  \n\n`;
		const ids = await pair.send({ to: 'large@example.test', subject: 'large text with links', text });
		expect(pair.bodyPieces(ids[0], 'text')).toBeGreaterThan(1);
		const response = await pair.sameResponse(ids, (id) => `/api/text/large@example.test/${id}`);
		expect(response.status).toBe(200);
		expect(response.contentType).toBe('text/plain; charset=utf-8');
		const body = response.bytes.toString();
		expect(body).toContain(`see [3] ${line(2999)}`);
		expect(
			body.endsWith(
				`${line(49_999).trimEnd()}\n\n\n\n[1] https://example.org/999?q=é\n[2] https://example.org/1999?q=é\n[3] https://example.org/2999?q=é\n`,
			),
		).toBe(true);
	});

	it('cuts the connection short of the Content-Length when the message is deleted while its text streams, and serves on', async () => {
		const { spooling: server } = pair;
		// 16 MB: more than the kernel's socket buffers hold, so most pieces are still to be read when the message goes.
		const text = `https://example.org/first\n${`${'x'.repeat(99)}\n`.repeat(160_000)}`;
		const [id] = await sendMail(server, { to: 'deleted@example.test', text });
		const cut = await readWhileDeleted(server, `/api/text/deleted@example.test/${id}`, 'deleted@example.test', id);
		expect(cut.status).toBe(200);
		expect(cut.contentLength).toBe(
			Buffer.byteLength(text.replace('https://example.org/first', '[1]').trimEnd()) + '\n\n\n\n[1] https://example.org/first\n'.length,
		);
		expect(cut.complete).toBe(false);
		expect(cut.received).toBeLessThan(cut.contentLength);
		expect((await server.api(`/api/text/deleted@example.test/${id}`)).status).toBe(404);
		expect((await server.api('/api/addresses/deleted@example.test/message-count')).body.count).toBe(0);
	});
});

describe('rate limits', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom({ rateLimitIp: 3, rateLimitKey: 5 });
	});
	afterAll(() => server.stop());

	it('limits callers without a key per IP, with a JSON 429', async () => {
		for (let i = 0; i < 3; i++) expect((await server.api('/api/addresses/limited@example.test/messages')).status).toBe(200);
		const refused = await server.api('/api/addresses/limited@example.test/messages');
		expectError(refused, 429, /3 requests per minute/);
		expect(refused.body.error).toBe('Too Many Requests');
		expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
	});

	it('limits each API key on its own, apart from the IP', async () => {
		const first = server.createAccount('limited-one');
		const second = server.createAccount('limited-two');
		for (let i = 0; i < 5; i++) expect((await server.api('/api/me', { key: first.key })).status).toBe(200);
		expectError(await server.api('/api/me', { key: first.key }), 429, /5 requests per minute/);
		expect((await server.api('/api/me', { key: second.key })).status).toBe(200);
	});

	it("counts requests with unknown keys against the caller's IP, so made-up keys do not get around it", async () => {
		const fresh = await startTestMailroom({ rateLimitIp: 3, rateLimitKey: 5 });
		try {
			for (let i = 0; i < 3; i++) expectError(await fresh.api('/api/me', { key: `mr_made-up-${i}` }), 401);
			expectError(await fresh.api('/api/me', { key: 'mr_made-up-again' }), 429);
			expectError(await fresh.api('/api/addresses/x@example.test/messages'), 429);
			// a valid key has its own budget
			expect((await fresh.api('/api/me', { key: fresh.adminKey })).status).toBe(200);
		} finally {
			await fresh.stop();
		}
	});

	it('documents the defaults: 1200 per key and 300 per IP each minute', async () => {
		const defaults = await startTestMailroom();
		try {
			expect({ key: defaults.config.rateLimitKey, ip: defaults.config.rateLimitIp }).toEqual({ key: 1200, ip: 300 });
			const response = await defaults.api('/api/addresses/defaults@example.test/messages');
			expect(response.headers.get('x-ratelimit-limit')).toBe('300');
			expect((await defaults.api('/api/me', { key: defaults.adminKey })).headers.get('x-ratelimit-limit')).toBe('1200');
		} finally {
			await defaults.stop();
		}
	});
});
