import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { enc, sendMail } from '../../helpers/messages';
import { nodeDescription, nodeJson, runNode, shownParameter, startNodeFixture, type NodeFixture } from '../../helpers/n8n';
import { query } from '../../helpers/database';
import { scrape } from '../../helpers/metrics';

/**
 * The lists of messages as n8n users expect them (version 1.2): simplified items, Get Many's filters, attachments as
 * binary data, and the address pickers, in n8n-core's real contexts against a real server.
 */
describe('Mailroom node: simplified lists, filters and address pickers', () => {
	let fixture: NodeFixture;
	const inbox = 'lists@example.test';
	const lookalike = 'otherlists@example.test';
	const domain = 'lists-domain.test';
	const catchAll = `all@${domain}`;
	const records: Record<string, MessageRecord> = {};

	const message = (parameters: INodeParameters) => nodeJson(fixture.n8n, { resource: 'message', ...parameters });
	const record = async (email: string, id: string) =>
		(await fixture.server.api<MessageRecord>(`/api/addresses/${enc(email)}/messages/${id}`, { key: fixture.account.key })).body;
	const listed = async (email: string) =>
		(await fixture.server.api<MessageRecord[]>(`/api/addresses/${enc(email)}/messages`, { key: fixture.account.key })).body;
	const subjects = (items: IDataObject[]) => items.map((item) => item.subject);
	/** The API requests the server has answered, by route pattern. */
	const requestsByRoute = async () => {
		const counts = new Map<string, number>();
		for (const { name, labels, value } of (await scrape(fixture.server.metricsUrl)).samples)
			if (name === 'mailroom_http_requests_total') counts.set(labels.route, (counts.get(labels.route) ?? 0) + value);
		return counts;
	};
	/** The routes `run` made requests to, and how many to each. */
	const requestsOf = async (run: () => Promise<unknown>) => {
		const before = await requestsByRoute();
		await run();
		const after = await requestsByRoute();
		return Object.fromEntries(
			[...after].filter(([route, n]) => n !== (before.get(route) ?? 0)).map(([route, n]) => [route, n - (before.get(route) ?? 0)]),
		);
	};

	const pdf = Buffer.from('%PDF-1.4 invoice \x00\xff');
	const text = `Your code is 482913.\n\n  See https://shop.test/o/7\tfor details. ${'More words here. '.repeat(20)}`;

	beforeAll(async () => {
		fixture = await startNodeFixture({ account: 'lister', credits: 10, config: { metricsPort: 0 } });
		const { server, account } = fixture;
		for (const email of [inbox, lookalike]) await server.addresses.reserve(email, account.id);
		await server.domains.claim(domain, account.id);
		await server.api(`/api/domains/${domain}`, { key: account.key, method: 'PUT', body: { catchAll } });
		const send = async (name: string, mail: Parameters<typeof sendMail>[1], to = inbox) => {
			const [id] = await sendMail(server, { to, ...mail });
			records[name] = await record(to, id);
		};
		await send('invoice1', { from: 'Billing <billing@vendor.test>', subject: 'Invoice 1', text: 'first invoice' });
		await send('news', { from: 'news@other.test', subject: 'Newsletter', text: 'news' });
		await send('lookalike', { from: 'billing@vendor.test', subject: 'Invoice elsewhere' }, lookalike);
		await send('invoice2', {
			from: '"Lee, Ann" <billing@vendor.test>',
			cc: 'Boss <boss@example.org>',
			replyTo: 'Grüße Team <team@vendor.test>, help@vendor.test',
			date: new Date('2026-11-20T09:30:00Z'),
			messageId: '<invoice-2@vendor.test>',
			subject: 'Invoice 2',
			text,
			attachments: [
				{ filename: 'invoice.pdf', content: pdf, contentType: 'application/pdf' },
				{ filename: 'terms.txt', content: 'Payable within 30 days.', contentType: 'text/plain' },
			],
		});
		const messagePath = (name: string) => `/api/addresses/${enc(inbox)}/messages/${records[name]._id}`;
		const key = fixture.account.key;
		await server.api(`${messagePath('invoice1')}/read/true`, { key, method: 'PUT' });
		await server.api(`${messagePath('invoice1')}/labels/paid`, { key, method: 'PUT' });
		await send('domainMail', { from: 'shop@vendor.test', subject: 'To the domain', text: 'domain mail' }, `someone@${domain}`);
	});
	afterAll(() => fixture.stop());

	it('Get Many, simplified by default: a flat item per message, attachment names, read always true or false', async () => {
		const items = await message({ operation: 'getAll', email: inbox });
		expect(subjects(items)).toEqual(['Invoice 2', 'Newsletter', 'Invoice 1']);
		const stored = records.invoice2;
		expect(stored.codes).toContain('482913');
		expect(items[0]).toEqual({
			_id: stored._id,
			threadId: stored.threadId,
			inbox,
			from: [{ address: 'billing@vendor.test', name: 'Lee, Ann' }],
			fromAddress: 'billing@vendor.test',
			fromName: 'Lee, Ann',
			to: [{ address: inbox, name: '' }],
			cc: [{ address: 'boss@example.org', name: 'Boss' }],
			replyTo: [
				{ address: 'team@vendor.test', name: 'Grüße Team' },
				{ address: 'help@vendor.test', name: '' },
			],
			subject: 'Invoice 2',
			date: '2026-11-20T09:30:00.000Z',
			messageId: '<invoice-2@vendor.test>',
			snippet: text.replace(/\s+/g, ' ').slice(0, 200),
			read: false,
			labels: [],
			attachments: [
				{ filename: 'invoice.pdf', contentType: 'application/pdf', size: pdf.length, checksum: stored.attachments![0] },
				{ filename: 'terms.txt', contentType: 'text/plain', size: 23, checksum: stored.attachments![1] },
			],
			codes: stored.codes,
			links: stored.links,
			// These nodes' server does not verify senders: not checked.
			authenticated: null,
			received: stored.received,
		});
		expect((items[0].snippet as string).length).toBe(200);
		// The API gives read null for mail never marked.
		expect(records.news.read).toBeNull();
		expect(items.map((item) => item.read)).toEqual([false, false, true]);
		expect(items[2]).toMatchObject({ labels: ['paid'], attachments: [], replyTo: null, fromName: 'Billing' });
	});

	it('costs one request for a page of messages: the records carry Message-ID, Date, Reply-To and attachment names', async () => {
		expect(records.invoice2).toMatchObject({
			messageId: '<invoice-2@vendor.test>',
			date: '2026-11-20T09:30:00.000Z',
			replyTo: [
				{ address: 'team@vendor.test', name: 'Grüße Team' },
				{ address: 'help@vendor.test', name: '' },
			],
			attachmentFiles: [
				{
					checksum: records.invoice2.attachments![0],
					fileName: 'invoice.pdf',
					contentType: 'application/pdf',
					size: pdf.length,
					contentId: null,
				},
				{ checksum: records.invoice2.attachments![1], fileName: 'terms.txt', contentType: 'text/plain', size: 23, contentId: null },
			],
		});
		expect(records.news).toMatchObject({ replyTo: null, attachmentFiles: [], attachments: null });
		const listing = '/api/addresses/:email/messages';
		expect(await requestsOf(() => message({ operation: 'getAll', email: inbox }))).toEqual({ [listing]: 1 });
		expect(await requestsOf(() => message({ operation: 'search', query: 'subject:invoice' }))).toEqual({ '/api/inbox-search': 1 });
	});

	it('simplifies a record stored before Mailroom kept those fields (null) alike, from its headers and attachment list', async () => {
		const [item] = await message({ operation: 'getAll', email: inbox, limit: 1 });
		const set = (values: unknown[]) =>
			query(
				fixture.server,
				'UPDATE messages SET message_id_header = ?, date_header = ?, reply_to_json = ?, attachment_files_json = ? WHERE id = ?',
				[...values, records.invoice2._id],
			);
		const { messageId, date, replyTo, attachmentFiles } = records.invoice2;
		await set([null, null, null, null]);
		try {
			const older = await listed(inbox);
			expect(older[0]).toMatchObject({ messageId: null, date: null, replyTo: null, attachmentFiles: null });
			let items: IDataObject[] = [];
			const requests = await requestsOf(async () => (items = await message({ operation: 'getAll', email: inbox, limit: 1 })));
			expect(items).toEqual([item]);
			expect(requests).toEqual({
				'/api/addresses/:email/messages': 1,
				'/api/addresses/:email/messages/:messageId/headers': 1,
				'/api/addresses/:email/messages/:messageId/attachments': 1,
			});
		} finally {
			await set([messageId, date, JSON.stringify(replyTo), JSON.stringify(attachmentFiles)]);
		}
	});

	it('gives what the Mailroom Trigger and Message → Get give for the same fields', async () => {
		const [listedItem] = await message({ operation: 'getAll', email: inbox, limit: 1 });
		const [got] = await message({ operation: 'get', email: inbox, messageId: records.invoice2._id });
		for (const field of ['fromAddress', 'fromName', 'replyTo', 'date', 'messageId', 'threadId', 'to', 'cc', 'labels', 'codes'])
			expect([field, listedItem[field]]).toEqual([field, got[field]]);
	});

	it('Simplify off: the records exactly as listed (version 1.1 too, whose Get Many never simplified)', async () => {
		const records = await listed(inbox);
		expect(await message({ operation: 'getAll', email: inbox, simplify: false })).toEqual(records);
		expect(await nodeJson(fixture.n8n, { resource: 'message', operation: 'getAll', email: inbox }, { version: 1.1 })).toEqual(records);
	});

	it('Search, Wait For and Domain → Get Messages give the same simplified item; Simplify off their records', async () => {
		const [item] = await message({ operation: 'getAll', email: inbox, limit: 1 });
		const [found] = await message({ operation: 'search', query: 'subject:"invoice 2"' });
		expect(found).toEqual(item);
		const [waited] = await message({
			operation: 'waitFor',
			email: inbox,
			receivedAfterStart: false,
			filters: { subjectContains: 'Invoice 2' },
		});
		expect(waited).toEqual(item);
		const [raw] = await message({ operation: 'search', query: 'subject:"invoice 2"', simplify: false });
		expect(raw).toEqual(records.invoice2);

		const domainMessages = await nodeJson(fixture.n8n, { resource: 'domain', operation: 'getMessages', domain });
		expect(domainMessages).toEqual([
			expect.objectContaining({ inbox: `someone@${domain}`, fromAddress: 'shop@vendor.test', snippet: 'domain mail', read: false }),
		]);
		const domainRecords = await nodeJson(fixture.n8n, { resource: 'domain', operation: 'getMessages', domain, simplify: false });
		expect(domainRecords).toEqual([records.domainMail]);
	});

	it('Download Attachments on Get Many and Search: each message its own attachments, byte for byte', async () => {
		const options = { downloadAttachments: true, dataPropertyAttachmentsPrefixName: 'file_' };
		for (const [parameters, second] of [
			[{ operation: 'getAll', email: inbox, limit: 2 }, 'Newsletter'],
			// Search reads every inbox of the account.
			[{ operation: 'search', query: 'subject:invoice', limit: 2 }, 'Invoice elsewhere'],
		] as const) {
			const items = await runNode(fixture.n8n, { resource: 'message', ...parameters, options });
			expect(items.map((item) => item.json.subject)).toEqual(['Invoice 2', second]);
			expect(Object.keys(items[0].binary!)).toEqual(['file_0', 'file_1']);
			expect(items[0].binary!.file_0).toMatchObject({ fileName: 'invoice.pdf', mimeType: 'application/pdf' });
			expect(Buffer.from(items[0].binary!.file_0.data, 'base64')).toEqual(pdf);
			expect(Buffer.from(items[0].binary!.file_1.data, 'base64').toString()).toBe('Payable within 30 days.');
			expect(items[1].binary).toBeUndefined();
		}
		const [plain] = await runNode(fixture.n8n, { resource: 'message', operation: 'getAll', email: inbox, limit: 1 });
		expect(plain.binary).toBeUndefined();
	});

	it('Get Many filters: read status, from, label, received after and before, a query; never another inbox', async () => {
		const filtered = async (filters: INodeParameters) => subjects(await message({ operation: 'getAll', email: inbox, filters }));
		expect(await filtered({ readStatus: 'read' })).toEqual(['Invoice 1']);
		expect(await filtered({ readStatus: 'unread' })).toEqual(['Invoice 2', 'Newsletter']);
		expect(await filtered({ readStatus: 'both' })).toEqual(['Invoice 2', 'Newsletter', 'Invoice 1']);
		// otherlists@ holds "Invoice elsewhere" from the same sender: to:lists@ matches it, the inbox does not.
		expect(await filtered({ sender: 'VENDOR' })).toEqual(['Invoice 2', 'Invoice 1']);
		expect(await filtered({ sender: 'Lee, Ann' })).toEqual(['Invoice 2']);
		expect(await filtered({ label: 'paid' })).toEqual(['Invoice 1']);
		expect(await filtered({ receivedAfter: records.news.received })).toEqual(['Invoice 2', 'Newsletter']);
		expect(await filtered({ receivedBefore: records.news.received })).toEqual(['Invoice 1']);
		expect(await filtered({ q: 'invoice -is:read' })).toEqual(['Invoice 2']);
		expect(await filtered({ sender: 'vendor', readStatus: 'unread' })).toEqual(['Invoice 2']);
		await expect(filtered({ q: 'nosuch:thing' })).rejects.toMatchObject({ httpCode: '400' });
		await expect(filtered({ receivedAfter: 'yesterday' })).rejects.toThrow('Received After is not a date and time: "yesterday"');
	});

	it("lists the account's addresses and its domains' catch-alls to pick from, searchable", async () => {
		const search = (filter?: string) => fixture.n8n.listSearch('mailroom', 'searchAddresses', { filter });
		expect(await search()).toEqual({
			results: [
				{ name: `${catchAll} (catch-all of ${domain})`, value: catchAll },
				{ name: inbox, value: inbox },
				{ name: lookalike, value: lookalike },
			],
		});
		expect(await search('catch-all')).toEqual({ results: [{ name: `${catchAll} (catch-all of ${domain})`, value: catchAll }] });
		expect(await search('OTHER')).toEqual({ results: [{ name: lookalike, value: lookalike }] });
		// Any address of an owned domain is the account's: typed in the search, it is offered.
		expect(await search(`Sales@${domain}`)).toEqual({ results: [{ name: `sales@${domain} (in ${domain})`, value: `sales@${domain}` }] });
		expect(await search('sales@unowned.test')).toEqual({ results: [] });
	});

	it('Email Address and From take a picked address, a typed one, or the plain string of an earlier version', async () => {
		const d = nodeDescription(fixture.n8n.loader, 'mailroom');
		expect(shownParameter(d, { operation: 'getAll' }, 'email').type).toBe('resourceLocator');
		expect(shownParameter(d, { operation: 'getAll' }, 'email', 1.1).type).toBe('string');
		expect(shownParameter(d, { resource: 'email' }, 'from').type).toBe('resourceLocator');
		expect(shownParameter(d, { resource: 'email' }, 'from', 1.1).type).toBe('string');
		const sendAndWait = { resource: 'email', operation: 'sendAndWait' };
		expect(shownParameter(d, sendAndWait, 'from').type).toBe('resourceLocator');
		expect(shownParameter(d, sendAndWait, 'from', 1.1).type).toBe('string');

		const newest = ['Invoice 2'];
		for (const email of [{ __rl: true, mode: 'list', value: inbox }, { __rl: true, mode: 'email', value: ` ${inbox} ` }, inbox])
			expect(subjects(await message({ operation: 'getAll', email, limit: 1 }))).toEqual(newest);

		const [sent] = await nodeJson(fixture.n8n, {
			resource: 'email',
			operation: 'send',
			from: { __rl: true, mode: 'list', value: inbox },
			to: 'reader@example.test',
			subject: 'From the list',
			text: 'Picked',
		});
		expect(sent).toMatchObject({ status: 'delivered' });
		const [received] = await listed('reader@example.test');
		expect(received).toMatchObject({ subject: 'From the list', from: [{ address: inbox }] });
	});
});
