import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Fastify, { type FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { SHARED_SCHEMAS } from 'mailroom-server/dist/http/schemas';
import type { ParsedMail } from 'mailroom-server/dist/mail/parsed-mail';
import { ParserPool } from 'mailroom-server/dist/parse/parser-pool';
import { FolderSchema, type MessageRecord } from 'mailroom-server/dist/schemas/message';
import { RECORD_FIELDS, countRows } from '../../helpers/inboxes';
import { FUZZ_RUNS, rawMessage, shared } from '../../helpers/raw-messages';
import { ENGINES, attachment, idsIn, inMemoryMail, insert, mailTo, openTestStore, storePerBlock } from '../../helpers/stores';
import { queryColumn, withQueries } from '../../helpers/database';

// A listing is rendered to JSON by the database (MessageStore.listInboxJson); it must be byte for byte what the
// response schema's serializer makes of the same records read one by one.

const text = fc.string({ unit: 'binary', maxLength: 30 });
const addresses = fc.array(fc.record({ address: text, name: text }), { maxLength: 3 });
const mail = fc.record({
	subject: text,
	from: addresses,
	to: addresses,
	cc: fc.option(addresses, { nil: null }),
	bcc: fc.option(addresses, { nil: null }),
	links: fc.array(text, { maxLength: 3 }),
	spam: fc.double({ min: 0, max: 1, noNaN: true }),
	checksums: fc.array(fc.stringMatching(/^[0-9a-f]{32}$/), { maxLength: 2 }),
	received: fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }),
	ip: text,
	rtls: fc.boolean(),
	inboxes: fc.uniqueArray(fc.constantFrom('a@x.test', 'b@x.test', 'c@y.test'), { minLength: 1, maxLength: 3 }),
});
type Mail = typeof mail extends fc.Arbitrary<infer T> ? T : never;
const state = fc.record({
	read: fc.option(fc.boolean(), { nil: undefined }),
	labels: fc.array(text, { maxLength: 2 }),
	folder: fc.option(fc.constantFrom(...FolderSchema.enum), { nil: undefined }),
	star: fc.option(text, { nil: undefined }),
});

/** The parse of fuzzed mail. */
const fuzzedParse = (m: Mail): Partial<ParsedMail> => ({
	subject: m.subject,
	from: m.from,
	to: m.to,
	cc: m.cc,
	bcc: m.bcc,
	links: m.links,
	spam: m.spam,
	attachments: m.checksums.map((checksum) => attachment(checksum, checksum, { fileName: null, contentDisposition: null })),
});

describe.each(ENGINES)('MessageStore.listInboxJson (%s)', (engine) => {
	const current = storePerBlock(engine);
	let app: FastifyInstance;
	let records: MessageRecord[] = [];
	let url: string;
	/** Each property run stores into inboxes of its own, so runs need no cleaning up between them. */
	let run = 0;

	beforeAll(async () => {
		// The serializer the API uses: fastify with the shared schemas and the listing's response schema.
		app = Fastify();
		for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
		app.get('/', { schema: { response: { 200: { type: 'array', items: { $ref: 'Message#' } } } } }, () => records);
		url = await app.listen({ host: '127.0.0.1', port: 0 });
	});
	afterAll(() => app.close());

	const serialized = async (list: MessageRecord[]) => {
		records = list;
		return (await fetch(url)).text();
	};

	/** Mail as the fuzzer makes it (its text with any characters), to inboxes named by `inboxOf`. */
	const insertMail = (m: Mail, inboxOf: (inbox: string) => string) =>
		insert(current(), {
			...mailTo(m.inboxes.map(inboxOf), fuzzedParse(m), new Date(m.received)),
			ip: m.ip,
			via: m.ip,
			rtls: m.rtls,
		});

	it('renders any stored records and state as the schema serializer does, newest first', async () => {
		// The order expected is read with SQL of its own, on one connection for all the runs.
		await withQueries(current(), async (sql) => {
			await fc.assert(
				fc.asyncProperty(fc.array(fc.tuple(mail, state), { minLength: 1, maxLength: 6 }), async (messages) => {
					const { messages: store, messageState } = current();
					run++;
					const ofRun = (inbox: string) => `r${run}.${inbox}`;
					for (const [m, s] of messages) {
						for (const record of await insertMail(m, ofRun)) {
							if (s.read !== undefined) await messageState.setRead(record.inbox, record._id, s.read);
							for (const label of s.labels) await messageState.addLabel(record.inbox, record._id, label);
							if (s.folder !== undefined) await messageState.setFolder(record.inbox, record._id, s.folder);
							if (s.star !== undefined) await messageState.toggleStar(record.inbox, record._id, s.star);
						}
					}
					for (const inbox of ['a@x.test', 'b@x.test', 'c@y.test'].map(ofRun)) {
						const rows = await sql<{ id: string }>('SELECT id FROM messages WHERE inbox = ? ORDER BY received DESC, seq DESC', [inbox]);
						const expected = await serialized(await Promise.all(rows.map(async ({ id }) => (await store.get(inbox, id))!)));
						expect(await store.listInboxJson(inbox, 1000)).toBe(expected);
					}
				}),
				{ numRuns: Number(process.env.FUZZ_RUNS ?? 100) },
			);
		});
	}, 90_000);

	it('pages an inbox newest first, `until` exclusive, messages of one millisecond moved apart, and counts it', async () => {
		const { messages } = current();
		const base = Date.UTC(2026, 0, 1);
		// Two share a millisecond: the store moves the later one on by 1 ms, so `until` never splits them.
		const ids: string[] = [];
		for (const offset of [0, 10, 10, 20]) ids.push((await insert(current(), mailTo(['paged@x.test'], {}, new Date(base + offset))))[0]._id);
		const list = async (limit: number, until?: number) => idsIn(await messages.listInboxJson('paged@x.test', limit, until));
		expect(await list(10)).toEqual([...ids].reverse());
		expect(await list(2)).toEqual([ids[3], ids[2]]);
		expect(await list(10, base + 11)).toEqual([ids[1], ids[0]]);
		expect(await list(10, base + 10)).toEqual([ids[0]]);
		expect(await list(10, base)).toEqual([]);
		expect(await messages.listInboxJson('nobody@x.test', 10)).toBe('[]');
		expect(await messages.count('paged@x.test')).toBe(4);
	});
});

describe.each(ENGINES)('MessageStore: storing and reading messages (%s)', (engine) => {
	// One store for the block: each test stores to inboxes and a domain of its own (but the last, which counts all rows).
	const current = storePerBlock(engine);

	it('keeps `received` strictly increasing per inbox, also for one message to an inbox twice and for writes at once', async () => {
		const at = new Date(Date.UTC(2026, 1, 1));
		const twice = await insert(current(), mailTo(['t@x.test', 't@x.test', 'u@x.test'], {}, at));
		expect(twice.map((record) => Date.parse(record.received) - at.getTime())).toEqual([0, 1, 0]);
		await Promise.all(Array.from({ length: 20 }, () => insert(current(), mailTo(['t@x.test'], {}, at))));
		const received = await queryColumn(current(), "SELECT received FROM messages WHERE inbox = 't@x.test' ORDER BY received");
		expect(new Set(received).size).toBe(22);
	});

	it('lists a domain newest first, `until` inclusive, and counts it', async () => {
		const { messages } = current();
		const at = Date.UTC(2026, 2, 1);
		const [a, b] = await insert(current(), mailTo(['a@d.test', 'b@d.test'], {}, new Date(at)));
		const [c] = await insert(current(), mailTo(['c@d.test'], {}, new Date(at + 5)));
		await insert(current(), mailTo(['a@other.test'], {}, new Date(at + 6)));
		const ids = async (limit: number, until?: number) => (await messages.listDomain('d.test', limit, until)).map((r) => r._id);
		expect(await ids(10)).toEqual([c._id, b._id, a._id]);
		expect(await ids(1)).toEqual([c._id]);
		expect(await ids(10, at)).toEqual([b._id, a._id]);
		expect(await messages.countDomain('d.test')).toBe(3);
		expect(await messages.placeOf(c._id)).toEqual({ inbox: 'c@d.test', domain: 'd.test' });
		expect(await messages.placeOf('nope')).toBeUndefined();
		expect((await messages.byIds([a._id, c._id, 'nope'])).map((r) => r._id).sort()).toEqual([a._id, c._id].sort());
	});

	it('reads back the record, content, raw source and attachments it stored, in the inbox it is in only', async () => {
		const { messages, attachments } = current();
		const [record] = await insert(
			current(),
			mailTo(['r@x.test'], {
				subject: 'Grüße',
				headers: [['subject', 'Grüße']],
				text: 'plain ✓',
				html: '<p>html</p>',
				messageId: '<id@x>',
				date: '2026-01-02T03:04:05.000Z',
				attachments: [
					attachment('0123456789abcdef0123456789abcdef', 'one', { fileName: 'one.txt', contentId: '<cid@x>' }),
					attachment('fedcba9876543210fedcba9876543210', 'two'),
				],
			}),
		);
		expect(Object.keys(record).sort()).toEqual(RECORD_FIELDS);
		expect(await messages.get('r@x.test', record._id)).toEqual(record);
		expect(await messages.get('other@x.test', record._id)).toBeUndefined();
		const content = (await messages.content('r@x.test', record._id))!;
		expect(content).toMatchObject({
			messageId: '<id@x>',
			date: '2026-01-02T03:04:05.000Z',
			priority: 'normal',
			headers: [['subject', 'Grüße']],
		});
		expect(await content.text()).toBe('plain ✓');
		expect(await content.html()).toBe('<p>html</p>');
		expect(await content.textBytes()).toEqual(Buffer.from('plain ✓'));
		expect(await content.raw()).toEqual(Buffer.from('raw'));
		expect(await messages.rawSource('r@x.test', record._id)).toEqual(Buffer.from('raw'));
		expect(await messages.rawSource('other@x.test', record._id)).toBeUndefined();

		const stored = await content.attachments();
		expect(stored.map((a) => a.fileName)).toEqual(['one.txt', 'fedcba9876543210fedcba9876543210.txt']);
		expect(await attachments.list('r@x.test', record._id)).toEqual(stored);
		expect(await attachments.list('other@x.test', record._id)).toBeUndefined();
		for (const identifier of ['0123456789ABCDEF0123456789ABCDEF', 'cid@x', '<cid@x>', 'one.txt']) {
			expect((await attachments.find('r@x.test', record._id, identifier))?.checksum).toBe('0123456789abcdef0123456789abcdef');
		}
		expect(await attachments.find('r@x.test', record._id, 'missing')).toBeUndefined();
		expect(await attachments.read('0123456789abcdef0123456789abcdef', 1, 5)).toEqual(Buffer.from('ne'));
		expect(await attachments.read('0123456789abcdef0123456789abcdef', 3, 5)).toEqual(Buffer.alloc(0));
	});

	it('reads back mail with NUL characters alike on every engine: U+FFFD where the parser put it, the body and source as they came', async () => {
		const raw = Buffer.from(
			[
				'From: =?UTF-8?Q?Nul=00Name?= <from@x.test>',
				'To: to@x.test',
				'Subject: a\0b',
				'X-Note: kept\0here',
				'Content-Type: multipart/mixed; boundary="b"',
				'',
				'--b',
				'Content-Type: text/plain',
				'',
				'body\0nul',
				'--b',
				'Content-Type: text/plain; name="f\0.txt"',
				'Content-Disposition: attachment; filename="f\0.txt"',
				'',
				'file',
				'--b--',
				'',
			].join('\r\n'),
		);
		const [record] = await insert(current(), await inMemoryMail(raw, 'nul@x.test'));
		const stored = await current().messages.get('nul@x.test', record._id);
		expect(stored).toEqual(record);
		expect(stored).toMatchObject({ subject: 'a\uFFFDb', from: [{ address: 'from@x.test', name: 'Nul\uFFFDName' }] });
		const content = (await current().messages.content('nul@x.test', record._id))!;
		expect(content.headers).toContainEqual(['x-note', 'kept\uFFFDhere']);
		expect(await content.text()).toBe('body\0nul');
		expect(await content.raw()).toEqual(raw);
		expect((await content.attachments()).map((a) => a.fileName)).toEqual(['f\uFFFD.txt']);
		expect(await current().messages.listInboxJson('nul@x.test', 10)).not.toMatch(/\\u0000|\0/);
	});

	it('stores the bytes of an attachment once, whichever messages carry it', async () => {
		// A store of its own: the rows counted are all of this test's.
		const store = await openTestStore(engine);
		try {
			await insert(store, mailTo(['a@x.test'], { attachments: [attachment('aaaa', 'same')] }));
			await insert(store, mailTo(['b@x.test'], { attachments: [attachment('aaaa', 'same'), attachment('bbbb', 'other')] }));
			expect(await countRows(store, 'attachment_contents')).toBe(2);
			expect(await countRows(store, 'content_attachments')).toBe(3);
		} finally {
			await store.close();
		}
	});
});

function expectAddresses(list: unknown): void {
	expect(Array.isArray(list)).toBe(true);
	for (const entry of list as unknown[]) {
		expect(Object.keys(entry as object).sort()).toEqual(['address', 'name']);
		expect(typeof (entry as { address: unknown }).address).toBe('string');
		expect(typeof (entry as { name: unknown }).name).toBe('string');
	}
}

/**
 * Property-based fuzzing of the raw-message-to-record path: parsing on the worker pool (with its fallback to an
 * unparsed record), a real insert, and reading it all back.
 */
describe.each(ENGINES)('raw message to record, fuzzed (%s)', (engine) => {
	const current = storePerBlock(engine);
	let parser: ParserPool;
	beforeAll(() => {
		parser = new ParserPool(2, 10_000);
	});
	afterAll(() => parser.close());

	it(`stores a spec 2.1 record for any input (${FUZZ_RUNS} cases)`, async () => {
		let unparsed = 0;
		await fc.assert(
			fc.asyncProperty(rawMessage, async (raw) => {
				const { parsed, error } = await parser.parse(shared(raw));
				if (error) unparsed++;
				const { messages } = current();
				const [record] = await insert(current(), { ...mailTo(['fuzz@fuzz.test']), raw: shared(raw), parsed });

				expect(Object.keys(record).sort()).toEqual(RECORD_FIELDS);
				expect(record).toMatchObject({
					savedBy: null,
					inbox: 'fuzz@fuzz.test',
					originalInbox: 'fuzz@fuzz.test',
					domain: 'fuzz.test',
					folder: 'inbox',
					labels: [],
					read: null,
					rtls: false,
				});
				expect(typeof record._id).toBe('string');
				expect(typeof record.subject).toBe('string');
				expectAddresses(record.from);
				expectAddresses(record.to);
				if (record.cc !== null) expectAddresses(record.cc);
				if (record.bcc !== null) expectAddresses(record.bcc);
				expect(record.received).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
				expect(record.size).toBe(raw.length);
				if (record.attachments !== null) {
					expect(record.attachments.length).toBeGreaterThan(0);
					for (const md5 of record.attachments) expect(md5).toMatch(/^[0-9a-f]{32}$/);
				}
				for (const link of record.links) expect(typeof link).toBe('string');
				expect(Number.isFinite(record.spam)).toBe(true);
				expect(record.spam).toBeGreaterThanOrEqual(0);
				expect(record.spam).toBeLessThanOrEqual(1);

				// What was stored reads back the same, JSON-safe, with the exact raw bytes, and its content as parsed.
				expect(await messages.get('fuzz@fuzz.test', record._id)).toEqual(JSON.parse(JSON.stringify(record)));
				const content = (await messages.content('fuzz@fuzz.test', record._id))!;
				const stored = await content.raw();
				expect(Buffer.isBuffer(stored) && stored.equals(raw)).toBe(true);
				expect(await content.text()).toBe(Buffer.from(parsed.text as string).toString());
				expect(await content.html()).toBe(parsed.html === null ? null : Buffer.from(parsed.html as string).toString());
				expect(content.headers).toEqual(JSON.parse(JSON.stringify(parsed.headers)));
				expect((await content.attachments()).map((a) => a.checksum)).toEqual(parsed.attachments.map((a) => a.checksum));
			}),
			{ numRuns: FUZZ_RUNS },
		);
		console.log(`fuzz: ${FUZZ_RUNS} messages stored, ${unparsed} of them unparsed (raw kept)`);
	}, 90_000);
});
