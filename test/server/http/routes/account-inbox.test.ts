import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom, type TestMailroom } from '../../../helpers/mailroom';
import { expectError, sendMail } from '../../../helpers/messages';

/** What GET /api/inbox answers. */
interface InboxPage {
	messages: MessageRecord[];
	unread: number;
	limit: number;
	skip: number;
}

/** What GET /api/inbox-search answers (GET /api/inbox-filter: the messages alone). */
interface SearchResult {
	query: string;
	messages: MessageRecord[];
}

const idsOf = (messages: { _id: string }[]) => messages.map((message) => message._id);

describe('account-wide inbox, filter and search', () => {
	let server: TestMailroom;
	let account: { id: string; key: string };
	let other: { id: string; key: string };
	const ids: Record<string, string> = {};

	beforeAll(async () => {
		server = await startTestMailroom();
		account = await server.createAccount('reader');
		other = await server.createAccount('other');
		await server.addresses.reserve('reserved@example.test', account.id);
		await server.addresses.reserve('inside@acme.test', account.id); // also covered by the domain: listed once
		await server.domains.claim('acme.test', account.id);
		await server.addresses.reserve('theirs@example.test', other.id);
		// Oldest first, one at a time, so the expected order is the sending order reversed.
		[ids.invoice] = await sendMail(server, { from: 'billing@vendor.test', to: 'reserved@example.test', subject: 'Invoice 42' });
		[ids.welcome] = await sendMail(server, { from: 'Hello Team <team@welcome.test>', to: 'new@acme.test', subject: 'Welcome aboard' });
		[ids.inside] = await sendMail(server, { from: 'billing@vendor.test', to: 'inside@acme.test', subject: 'Receipt' });
		[ids.publicInvoice] = await sendMail(server, { from: 'billing@vendor.test', to: 'public@example.test', subject: 'Invoice 43' });
		[ids.theirInvoice] = await sendMail(server, { from: 'billing@vendor.test', to: 'theirs@example.test', subject: 'Invoice 44' });
		[, ids.cc] = await sendMail(server, {
			from: 'x@y.test',
			to: 'someone@elsewhere.test',
			bcc: 'reserved@example.test',
			subject: 'Blind copy',
		});
	});
	afterAll(() => server.stop());

	describe('GET /api/inbox', () => {
		it('lists the private mail of the account, newest first, with paging and the unread count', async () => {
			const response = await server.api<InboxPage>('/api/inbox', { key: account.key });
			expect(response.status).toBe(200);
			expect(response.body).toMatchObject({ unread: 4, limit: 20, skip: 0 });
			expect(idsOf(response.body.messages)).toEqual([ids.cc, ids.inside, ids.welcome, ids.invoice]);
			const page = await server.api<InboxPage>('/api/inbox?limit=2&skip=1', { key: account.key });
			expect(idsOf(page.body.messages)).toEqual([ids.inside, ids.welcome]);
			expect(page.body).toMatchObject({ limit: 2, skip: 1 });
		});

		it('counts only unread messages and filters by since', async () => {
			await server.api(`/api/addresses/reserved@example.test/messages/${ids.invoice}/read/true`, { method: 'PUT', key: account.key });
			expect((await server.api<InboxPage>('/api/inbox', { key: account.key })).body.unread).toBe(3);
			const invoice = (
				await server.api<MessageRecord>(`/api/addresses/reserved@example.test/messages/${ids.invoice}`, { key: account.key })
			).body;
			const since = await server.api<InboxPage>(`/api/inbox?since=${encodeURIComponent(invoice.received)}`, { key: account.key });
			expect(idsOf(since.body.messages)).not.toContain(ids.invoice);
			expect(idsOf(since.body.messages)).toContain(ids.cc);
		});

		it('needs a key; rejects bad paging', async () => {
			expectError(await server.api('/api/inbox'), 401);
			expectError(await server.api('/api/inbox?limit=0', { key: account.key }), 400);
			expectError(await server.api('/api/inbox?skip=-1', { key: account.key }), 400);
			expectError(await server.api('/api/inbox?since=yesterday', { key: account.key }), 400);
			expect((await server.api<InboxPage>('/api/inbox', { key: other.key })).body.messages.map((m) => m.subject)).toEqual(['Invoice 44']);
		});
	});

	describe('GET /api/inbox-filter', () => {
		const filter = async (query: string) =>
			idsOf((await server.api<Pick<SearchResult, 'messages'>>(`/api/inbox-filter?${query}`, { key: account.key })).body.messages);

		it('ANDs the conditions, matching substrings case-insensitively', async () => {
			expect(await filter('andFrom=VENDOR')).toEqual([ids.inside, ids.invoice]);
			expect(await filter('andFrom=vendor&andSubjectIncludes=invoice')).toEqual([ids.invoice]);
			expect(await filter('andTo=acme.test')).toEqual([ids.inside, ids.welcome]);
			expect(await filter('andTo=reserved')).toEqual([ids.cc, ids.invoice]); // matches the inbox of a Bcc copy too
			expect(await filter('andRead=true')).toEqual([ids.invoice]);
			expect(await filter('andRead=false&andFrom=vendor')).toEqual([ids.inside]);
		});

		it('matches terms shorter than the index takes', async () => {
			expect(await filter('andSubjectIncludes=42')).toEqual([ids.invoice]);
			expect(await filter('andFrom=x@')).toEqual([ids.cc]);
		});

		it('needs a key and at least one condition', async () => {
			expectError(await server.api('/api/inbox-filter?andFrom=vendor'), 401);
			expectError(await server.api('/api/inbox-filter', { key: account.key }), 400, /at least one/);
			expectError(await server.api('/api/inbox-filter?andRead=perhaps', { key: account.key }), 400);
		});
	});

	describe('GET /api/inbox-search', () => {
		const search = async (query: string) =>
			(await server.api<SearchResult>(`/api/inbox-search?query=${encodeURIComponent(query)}`, { key: account.key })).body;

		it('finds a word in to, from, subject or body; only the account mail', async () => {
			expect(await search('invoice')).toEqual({ query: 'invoice', messages: [expect.objectContaining({ _id: ids.invoice })] });
			expect(idsOf((await search('billing@vendor')).messages)).toEqual([ids.inside, ids.invoice]);
			expect(idsOf((await search('ACME')).messages)).toEqual([ids.inside, ids.welcome]);
			expect(idsOf((await search('"quoted"')).messages)).toEqual([]);
			expect(idsOf((await search('42')).messages)).toEqual([ids.invoice]);
			expect(idsOf((await server.api<SearchResult>('/api/inbox-search?q=welcome', { key: account.key })).body.messages)).toEqual([
				ids.welcome,
			]);
		});

		it('searches the text body, and takes phrases, operators and negation', async () => {
			await server.addresses.reserve('notes@example.test', account.id);
			const [figures] = await sendMail(server, {
				from: 'Carla Finance <carla@vendor.test>',
				to: 'notes@example.test',
				subject: 'Quarter',
				text: 'The quarterly figures are attached.',
				attachments: [{ filename: 'figures.csv', content: 'a,b' }],
			});
			expect(idsOf((await search('QUARTERLY')).messages)).toEqual([figures]);
			expect(idsOf((await search('"figures are attached"')).messages)).toEqual([figures]);
			expect(idsOf((await search('"attached figures"')).messages)).toEqual([]);
			expect(idsOf((await search('from:"carla finance" has:attachment is:unread')).messages)).toEqual([figures]);
			expect(idsOf((await search('from:vendor -quarterly -subject:receipt')).messages)).toEqual([ids.invoice]);
			expect(idsOf((await search('to:notes after:2020-01-01')).messages)).toEqual([figures]);
			expect(idsOf((await search('to:notes before:2020-01-01')).messages)).toEqual([]);
			expect(await search('to:notes is:starred')).toEqual({ query: 'to:notes is:starred', messages: [] });
			await server.addresses.release('notes@example.test'); // out of the listings the tests below compare
		});

		it('answers 400 saying what is wrong with a query', async () => {
			const refused = async (query: string, message: RegExp) =>
				expectError(await server.api(`/api/inbox-search?query=${encodeURIComponent(query)}`, { key: account.key }), 400, message);
			await refused(
				'invoice foo:bar',
				/^foo: is not an operator of search \(to look for it as text, put it in quotes\): the query takes words/,
			);
			await refused('before:yesterday', /^before:yesterday is not a date: give YYYY-MM-DD/);
			await refused('after:2026-02-30', /^after:2026-02-30 is not a date/);
			await refused('is:new', /^is:new is not known: is: takes read, unread, starred or authenticated$/);
			await refused('from:', /^from: needs a value/);
			await refused('""', /^Empty quotes/);
			await refused('   ', /^The query is empty/);
			await refused(Array.from({ length: 21 }, (_, i) => `w${i}`).join(' '), /^The query has 21 conditions: at most 20 are taken$/);
			await refused('x'.repeat(1001), /query/);
		});

		it('finds mail that arrived before the address was reserved, and not after it is released', async () => {
			const [early] = await sendMail(server, { to: 'later@example.test', subject: 'Arrived early' });
			expect((await search('arrived early')).messages).toEqual([]);
			await server.addresses.reserve('later@example.test', account.id);
			expect(idsOf((await search('arrived early')).messages)).toEqual([early]);
			await server.addresses.release('later@example.test');
			expect((await search('arrived early')).messages).toEqual([]);
			await server.domains.claim('late.test', account.id);
			const [onDomain] = await sendMail(server, { to: 'x@late.test', subject: 'Domain mail' });
			expect(idsOf((await search('domain mail')).messages)).toEqual([onDomain]);
			await server.domains.remove('late.test');
			expect((await search('domain mail')).messages).toEqual([]);
		});

		it('sends the account inbox, search and filter results byte for byte as the single-record route serialises each, with the same content type', async () => {
			const single = (inbox: string, id: string) => server.api(`/api/addresses/${inbox}/messages/${id}`, { key: account.key });
			const [welcome, inside] = [await single('new@acme.test', ids.welcome), await single('inside@acme.test', ids.inside)];
			// Both paths: the trigram index (3+ characters) and the scan of each source (shorter terms).
			for (const [path, prefix] of [
				['/api/inbox-search?query=acme', '{"query":"acme","messages":'],
				['/api/inbox-search?query=cm', '{"query":"cm","messages":'],
				['/api/inbox-filter?andTo=acme.test', '{"messages":'],
				['/api/inbox-filter?andTo=ac', '{"messages":'],
			]) {
				const response = await server.api(path, { key: account.key });
				expect(response.text).toBe(`${prefix}[${inside.text},${welcome.text}]}`);
				expect(response.headers.get('content-type')).toBe(welcome.headers.get('content-type'));
			}
			const page = await server.api('/api/inbox?limit=2&skip=1', { key: account.key });
			const unread = (await server.api<InboxPage>('/api/inbox', { key: account.key })).body.unread;
			expect(page.text).toBe(`{"messages":[${inside.text},${welcome.text}],"unread":${unread},"limit":2,"skip":1}`);
			expect(page.headers.get('content-type')).toBe(welcome.headers.get('content-type'));
		});

		it('needs a key and a query', async () => {
			expectError(await server.api('/api/inbox-search?query=invoice'), 401);
			expectError(await server.api('/api/inbox-search', { key: account.key }), 400);
			expectError(await server.api('/api/inbox-search?query=', { key: account.key }), 400);
		});
	});

	it('a deleted message is gone from list, text, raw, headers, attachments, inbox, filter and search', async () => {
		const inbox = 'reserved@example.test';
		const [id] = await sendMail(server, {
			from: 'gone@vendor.test',
			to: inbox,
			subject: 'Disappearing act',
			attachments: [{ filename: 'gone.txt', content: 'bye' }],
		});
		const key = account.key;
		const urls = [
			`/api/addresses/${inbox}/messages/${id}`,
			`/api/text/${inbox}/${id}`,
			`/api/raw/${inbox}/${id}`,
			`/api/addresses/${inbox}/messages/${id}/headers`,
			`/api/body/${inbox}/${id}`,
			`/api/dirty/${inbox}/${id}`,
			`/api/addresses/${inbox}/messages/${id}/attachments`,
			`/api/addresses/${inbox}/messages/${id}/attachments/gone.txt`,
		];
		for (const url of urls) expect((await server.api(url, { key })).status).toBe(200);
		expect(idsOf((await search('disappearing')).messages)).toEqual([id]);

		expect((await server.api(`/api/addresses/${inbox}/messages/${id}`, { method: 'DELETE', key })).status).toBe(200);
		for (const url of urls) expectError(await server.api(url, { key }), 404);
		expect(idsOf((await server.api<MessageRecord[]>(`/api/addresses/${inbox}/messages`, { key })).body)).not.toContain(id);
		expect(idsOf((await server.api<InboxPage>('/api/inbox', { key })).body.messages)).not.toContain(id);
		expect(await filter('andSubjectIncludes=disappearing')).toEqual([]);
		expect((await search('disappearing')).messages).toEqual([]);
		expect((await server.api<{ count: number }>(`/api/addresses/${inbox}/message-count`, { key })).body.count).toBe(2);

		async function search(query: string) {
			return (await server.api<SearchResult>(`/api/inbox-search?query=${query}`, { key })).body;
		}
		async function filter(query: string) {
			return idsOf((await server.api<Pick<SearchResult, 'messages'>>(`/api/inbox-filter?${query}`, { key })).body.messages);
		}
	});
});
