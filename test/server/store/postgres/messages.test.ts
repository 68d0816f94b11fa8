import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import Fastify, { type FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { SHARED_SCHEMAS } from 'mailroom-server/dist/http/schemas';
import type { ParsedMail } from 'mailroom-server/dist/mail/parsed-mail';
import { ParserPool } from 'mailroom-server/dist/parse/parser-pool';
import { FolderSchema, type MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { Store } from 'mailroom-server/dist/store/store';
import { openPostgresStore } from 'mailroom-server/dist/store/postgres/open';
import { RECORD_FIELDS } from '../../../helpers/inboxes';
import { FUZZ_RUNS, rawMessage, shared } from '../../../helpers/raw-messages';
import { startPostgres, type TestPostgres } from '../../../helpers/postgres';
import { Sql, attachment, freshStore, idsIn, mailTo } from './fixtures';

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

/** Mail as the fuzzer makes it (text with any characters, NUL included, which PostgreSQL text stores as U+FFFD). */
function fuzzedMail(m: Mail) {
	const parsed: Partial<ParsedMail> = {
		subject: m.subject,
		from: m.from,
		to: m.to,
		cc: m.cc,
		bcc: m.bcc,
		links: m.links,
		spam: m.spam,
		attachments: m.checksums.map((checksum) => attachment(checksum, checksum, { fileName: null, contentDisposition: null })),
	};
	return { ...mailTo(m.inboxes, parsed, new Date(m.received)), ip: m.ip, via: m.ip, rtls: m.rtls };
}

describe('PostgreSQL store: listings rendered as JSON by the database', () => {
	let postgres: TestPostgres;
	let store: Store;
	let sql: Sql;
	let app: FastifyInstance;
	let records: MessageRecord[] = [];
	let url: string;

	beforeAll(async () => {
		postgres = await startPostgres();
		const fresh = await freshStore(postgres);
		store = fresh.store;
		sql = await Sql.on(fresh.url);
		// The serializer the API uses: fastify with the shared schemas and the listing's response schema.
		app = Fastify();
		for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
		app.get('/', { schema: { response: { 200: { type: 'array', items: { $ref: 'Message#' } } } } }, () => records);
		url = await app.listen({ host: '127.0.0.1', port: 0 });
	});
	afterAll(async () => {
		await app.close();
		await sql.close();
		await store.close();
		await postgres.stop();
	});

	const serialized = async (list: MessageRecord[]) => {
		records = list;
		return (await fetch(url)).text();
	};

	it('renders any stored records and state as the schema serializer does, newest first', async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(fc.tuple(mail, state), { minLength: 1, maxLength: 6 }), async (messages) => {
				await sql.rows('TRUNCATE messages, messages_search, contents, content_attachments, attachment_contents CASCADE');
				for (const [m, s] of messages) {
					for (const record of await store.messages.insert(fuzzedMail(m))) {
						if (s.read !== undefined) await store.messageState.setRead(record.inbox, record._id, s.read);
						for (const label of s.labels) await store.messageState.addLabel(record.inbox, record._id, label);
						if (s.folder !== undefined) await store.messageState.setFolder(record.inbox, record._id, s.folder);
						if (s.star !== undefined) await store.messageState.toggleStar(record.inbox, record._id, s.star);
					}
				}
				for (const inbox of ['a@x.test', 'b@x.test', 'c@y.test']) {
					const ids = await sql.rows<{ id: string }>('SELECT id FROM messages WHERE inbox = $1 ORDER BY received DESC, seq DESC', [inbox]);
					const expected = await serialized((await Promise.all(ids.map(({ id }) => store.messages.get(inbox, id)))) as MessageRecord[]);
					expect(await store.messages.listInboxJson(inbox, 1000)).toBe(expected);
				}
			}),
			{ numRuns: Number(process.env.FUZZ_RUNS ?? 40) },
		);
	}, 60_000);
});

describe('PostgreSQL store: storing and reading messages', () => {
	let postgres: TestPostgres;
	let store: Store;
	let dbUrl: string;
	let sql: Sql;
	beforeAll(async () => {
		postgres = await startPostgres();
		({ store, url: dbUrl } = await freshStore(postgres));
		sql = await Sql.on(dbUrl);
	});
	afterAll(async () => {
		await sql.close();
		await store.close();
		await postgres.stop();
	});
	beforeEach(async () => {
		await sql.rows('TRUNCATE messages, messages_search, contents, content_attachments, attachment_contents CASCADE');
	});

	it('pages an inbox newest first, `until` exclusive, messages of one millisecond moved apart', async () => {
		const base = Date.UTC(2026, 0, 1);
		const ids: string[] = [];
		for (const offset of [0, 10, 10, 20]) ids.push((await store.messages.insert(mailTo(['a@x.test'], {}, new Date(base + offset))))[0]._id);
		const list = async (limit: number, until?: number) => idsIn(await store.messages.listInboxJson('a@x.test', limit, until));
		expect(await list(10)).toEqual([...ids].reverse());
		expect(await list(2)).toEqual([ids[3], ids[2]]);
		expect(await list(10, base + 11)).toEqual([ids[1], ids[0]]);
		expect(await list(10, base + 10)).toEqual([ids[0]]);
		expect(await list(10, base)).toEqual([]);
		expect(await store.messages.listInboxJson('nobody@x.test', 10)).toBe('[]');
		expect(await store.messages.count('a@x.test')).toBe(4);
	});

	it('keeps `received` strictly increasing per inbox, also for one message to an inbox twice and for two nodes at once', async () => {
		const at = new Date(Date.UTC(2026, 1, 1));
		const twice = await store.messages.insert(mailTo(['t@x.test', 't@x.test', 'u@x.test'], {}, at));
		expect(twice.map((record) => Date.parse(record.received) - at.getTime())).toEqual([0, 1, 0]);
		const second = await openPostgresStore(dbUrl, { node: 'node-b', role: 'ingest' });
		try {
			await Promise.all(
				Array.from({ length: 20 }, (_, i) =>
					(i % 2 ? store : second).transaction((parts) => parts.messages.insert(mailTo(['t@x.test'], {}, at))),
				),
			);
		} finally {
			await second.close();
		}
		const received = await sql.rows<{ received: string }>("SELECT received FROM messages WHERE inbox = 't@x.test' ORDER BY received");
		expect(new Set(received.map((row) => row.received)).size).toBe(22);
	});

	it('lists a domain newest first, `until` inclusive, and counts it', async () => {
		const at = Date.UTC(2026, 2, 1);
		const [a, b] = await store.messages.insert(mailTo(['a@d.test', 'b@d.test'], {}, new Date(at)));
		const [c] = await store.messages.insert(mailTo(['c@d.test'], {}, new Date(at + 5)));
		await store.messages.insert(mailTo(['a@other.test'], {}, new Date(at + 6)));
		const ids = async (limit: number, until?: number) => (await store.messages.listDomain('d.test', limit, until)).map((r) => r._id);
		expect(await ids(10)).toEqual([c._id, b._id, a._id]);
		expect(await ids(1)).toEqual([c._id]);
		expect(await ids(10, at)).toEqual([b._id, a._id]);
		expect(await store.messages.countDomain('d.test')).toBe(3);
		expect(await store.messages.placeOf(c._id)).toEqual({ inbox: 'c@d.test', domain: 'd.test' });
		expect(await store.messages.placeOf('nope')).toBeUndefined();
		expect((await store.messages.byIds([a._id, c._id, 'nope'])).map((r) => r._id).sort()).toEqual([a._id, c._id].sort());
	});

	it('reads back the record, content, raw source and attachments it stored, in the inbox it is in only', async () => {
		const [record] = await store.messages.insert(
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
		expect(await store.messages.get('r@x.test', record._id)).toEqual(record);
		expect(await store.messages.get('other@x.test', record._id)).toBeUndefined();
		const content = (await store.messages.content('r@x.test', record._id))!;
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
		expect(await store.messages.rawSource('r@x.test', record._id)).toEqual(Buffer.from('raw'));
		expect(await store.messages.rawSource('other@x.test', record._id)).toBeUndefined();

		const attachments = await content.attachments();
		expect(attachments.map((a) => a.fileName)).toEqual(['one.txt', 'fedcba9876543210fedcba9876543210.txt']);
		expect(await store.attachments.list('r@x.test', record._id)).toEqual(attachments);
		expect(await store.attachments.list('other@x.test', record._id)).toBeUndefined();
		for (const identifier of ['0123456789ABCDEF0123456789ABCDEF', 'cid@x', '<cid@x>', 'one.txt']) {
			expect((await store.attachments.find('r@x.test', record._id, identifier))?.checksum).toBe('0123456789abcdef0123456789abcdef');
		}
		expect(await store.attachments.find('r@x.test', record._id, 'missing')).toBeUndefined();
		expect(await store.attachments.read('0123456789abcdef0123456789abcdef', 1, 5)).toEqual(Buffer.from('ne'));
		expect(await store.attachments.read('0123456789abcdef0123456789abcdef', 3, 5)).toEqual(Buffer.alloc(0));
	});

	it('stores the bytes of an attachment once, whichever messages carry it', async () => {
		await store.messages.insert(mailTo(['a@x.test'], { attachments: [attachment('aaaa', 'same')] }));
		await store.messages.insert(mailTo(['b@x.test'], { attachments: [attachment('aaaa', 'same'), attachment('bbbb', 'other')] }));
		expect(await sql.count('attachment_contents')).toBe(2);
		expect(await sql.count('content_attachments')).toBe(3);
	});

	it('keeps a NUL of a body, and stores that of a subject as U+FFFD (text cannot hold it)', async () => {
		const [record] = await store.messages.insert(mailTo(['n@x.test'], { subject: 'a\u0000b', text: 'body\u0000nul', html: null }));
		expect(record.subject).toBe('a\uFFFDb');
		expect((await store.messages.get('n@x.test', record._id))?.subject).toBe('a\uFFFDb');
		expect(await (await store.messages.content('n@x.test', record._id))!.text()).toBe('body\u0000nul');
	});

	it('rolls a failed transaction back alone: the others of its group commit stay', async () => {
		const outcomes = await Promise.allSettled([
			store.transaction((parts) => parts.messages.insert(mailTo(['kept@x.test']))),
			store.transaction(async (parts) => {
				await parts.messages.insert(mailTo(['lost@x.test']));
				throw new Error('this write fails');
			}),
			store.transaction((parts) => parts.messages.insert(mailTo(['kept@x.test']))),
		]);
		expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
		expect(await store.messages.count('kept@x.test')).toBe(2);
		expect(await store.messages.count('lost@x.test')).toBe(0);
		expect(await sql.count('contents')).toBe(2);
	});
});

/** The raw-message-to-record path against PostgreSQL: the real parser, a real insert, and reading it all back. */
describe('PostgreSQL store: any raw message, parsed, stored and read back (fuzzed)', () => {
	let postgres: TestPostgres;
	let store: Store;
	let parser: ParserPool;
	beforeAll(async () => {
		postgres = await startPostgres();
		({ store } = await freshStore(postgres));
		parser = new ParserPool(2, 10_000);
	});
	afterAll(async () => {
		await parser.close();
		await store.close();
		await postgres.stop();
	});

	it(`stores any input and reads back what it stored (${FUZZ_RUNS} cases)`, async () => {
		await fc.assert(
			fc.asyncProperty(rawMessage, async (raw) => {
				const { parsed } = await parser.parse(shared(raw));
				const [record] = await store.transaction((parts) =>
					parts.messages.insert({ ...mailTo(['fuzz@fuzz.test']), raw: shared(raw), parsed }),
				);
				expect(Object.keys(record).sort()).toEqual(RECORD_FIELDS);
				expect(record.size).toBe(raw.length);
				expect(await store.messages.get('fuzz@fuzz.test', record._id)).toEqual(JSON.parse(JSON.stringify(record)));
				const content = (await store.messages.content('fuzz@fuzz.test', record._id))!;
				expect(await content.raw()).toEqual(raw);
				expect(await content.text()).toBe(Buffer.from(parsed.text as string).toString());
				expect(await content.html()).toBe(parsed.html === null ? null : Buffer.from(parsed.html as string).toString());
				expect(content.headers).toEqual(JSON.parse(JSON.stringify(parsed.headers)));
				expect((await content.attachments()).map((a) => a.checksum)).toEqual(parsed.attachments.map((a) => a.checksum));
			}),
			{ numRuns: FUZZ_RUNS },
		);
	}, 90_000);
});
