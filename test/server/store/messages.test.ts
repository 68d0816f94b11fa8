import { rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import Fastify, { type FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { SHARED_SCHEMAS } from 'mailroom-server/dist/http/schemas';
import type { ParsedMail } from 'mailroom-server/dist/mail/parsed-mail';
import { ParserPool } from 'mailroom-server/dist/parse/parser-pool';
import { FolderSchema, type MessageRecord } from 'mailroom-server/dist/schemas/message';
import { openDatabase, type Db } from 'mailroom-server/dist/store/database';
import { MessageStateStore } from 'mailroom-server/dist/store/message-state';
import { MessageStore } from 'mailroom-server/dist/store/messages';
import { RECORD_FIELDS } from '../../helpers/inboxes';
import { FUZZ_RUNS, rawMessage, shared } from '../../helpers/raw-messages';
import { tempDataDir } from '../../helpers/mailroom';

// A listing is rendered to JSON by SQLite (MessageStore.listInboxJson); it must be byte for byte what the
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

describe('MessageStore.listInboxJson', () => {
	let dir: string;
	let db: Db;
	let store: MessageStore;
	let messageState: MessageStateStore;
	let app: FastifyInstance;
	let records: MessageRecord[] = [];
	let url: string;

	beforeAll(async () => {
		// The serializer the API uses: fastify with the shared schemas and the listing's response schema.
		app = Fastify();
		for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
		app.get('/', { schema: { response: { 200: { type: 'array', items: { $ref: 'Message#' } } } } }, () => records);
		url = await app.listen({ host: '127.0.0.1', port: 0 });
	});
	afterAll(() => app.close());
	beforeEach(() => {
		dir = tempDataDir();
		db = openDatabase(dir);
		store = new MessageStore(db);
		messageState = new MessageStateStore(db);
	});
	afterEach(() => {
		db.close();
		rmSync(dir, { recursive: true, force: true });
	});

	const serialized = async (list: MessageRecord[]) => {
		records = list;
		return (await fetch(url)).text();
	};

	function insert(m: Mail): MessageRecord[] {
		const parsed: ParsedMail = {
			subject: m.subject,
			from: m.from,
			to: m.to,
			cc: m.cc,
			bcc: m.bcc,
			messageId: '<m@x>',
			date: null,
			priority: 'normal',
			headers: [],
			text: 't',
			html: null,
			links: m.links,
			spam: m.spam,
			attachments: m.checksums.map((checksum) => ({
				checksum,
				contentType: 'text/plain',
				fileName: null,
				length: 1,
				contentId: null,
				contentDisposition: null,
				transferEncoding: null,
				content: Buffer.from(checksum),
			})),
		};
		return store.insert({
			raw: Buffer.from('raw'),
			parsed,
			ip: m.ip,
			via: m.ip,
			rtls: m.rtls,
			received: new Date(m.received),
			recipients: m.inboxes.map((inbox) => ({ inbox, originalInbox: inbox, domain: inbox.split('@')[1] })),
		});
	}

	it('renders any stored records and state as the schema serializer does, newest first', async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(fc.tuple(mail, state), { minLength: 1, maxLength: 6 }), async (messages) => {
				db.exec(
					'DELETE FROM messages_search; DELETE FROM messages; DELETE FROM content_attachments; DELETE FROM attachment_contents; DELETE FROM contents',
				);
				for (const [m, s] of messages) {
					for (const record of insert(m)) {
						if (s.read !== undefined) messageState.setRead(record.inbox, record._id, s.read);
						for (const label of s.labels) messageState.addLabel(record.inbox, record._id, label);
						if (s.folder !== undefined) messageState.setFolder(record.inbox, record._id, s.folder);
						if (s.star !== undefined) messageState.toggleStar(record.inbox, record._id, s.star);
					}
				}
				for (const inbox of ['a@x.test', 'b@x.test', 'c@y.test']) {
					const ids = db.prepare('SELECT id FROM messages WHERE inbox = ? ORDER BY received DESC, seq DESC').pluck().all(inbox) as string[];
					const expected = await serialized(ids.map((id) => store.get(inbox, id)!));
					expect(store.listInboxJson(inbox, 1000)).toBe(expected);
				}
			}),
			{ numRuns: Number(process.env.FUZZ_RUNS ?? 100) },
		);
	});

	it('pages with limit and until as before: newest first, until exclusive', () => {
		const base = Date.UTC(2026, 0, 1);
		const m: Mail = {
			subject: 's',
			from: [],
			to: [],
			cc: null,
			bcc: null,
			links: [],
			spam: 0,
			checksums: [],
			received: 0,
			ip: '1.2.3.4',
			rtls: false,
			inboxes: ['a@x.test'],
		};
		// Two share a millisecond: the store moves the later one on by 1 ms, so `until` never splits them.
		const ids = [0, 10, 10, 20].map((offset) => insert({ ...m, received: base + offset })[0]._id);
		const list = (limit: number, until?: number) =>
			(JSON.parse(store.listInboxJson('a@x.test', limit, until)) as MessageRecord[]).map((r) => r._id);
		expect(list(10)).toEqual([...ids].reverse());
		expect(list(2)).toEqual([ids[3], ids[2]]);
		expect(list(10, base + 11)).toEqual([ids[1], ids[0]]);
		expect(list(10, base + 10)).toEqual([ids[0]]);
		expect(list(10, base)).toEqual([]);
		expect(store.listInboxJson('nobody@x.test', 10)).toBe('[]');
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
 * unparsed record) and a real insert into SQLite.
 */
describe('raw message to record, fuzzed', () => {
	let dataDir: string;
	let db: Db;
	let messages: MessageStore;
	let parser: ParserPool;
	beforeAll(() => {
		dataDir = tempDataDir();
		db = openDatabase(dataDir);
		messages = new MessageStore(db);
		parser = new ParserPool(2, 10_000);
	});
	afterAll(async () => {
		await parser.close();
		db.close();
		rmSync(dataDir, { recursive: true, force: true });
	});

	it(`stores a spec 2.1 record for any input (${FUZZ_RUNS} cases)`, async () => {
		let unparsed = 0;
		await fc.assert(
			fc.asyncProperty(rawMessage, async (raw) => {
				const { parsed, error } = await parser.parse(shared(raw));
				if (error) unparsed++;
				const [record] = db.transaction(() =>
					messages.insert({
						raw: shared(raw),
						parsed,
						recipients: [{ inbox: 'fuzz@fuzz.test', originalInbox: 'fuzz@fuzz.test', domain: 'fuzz.test' }],
						ip: '192.0.2.1',
						via: '127.0.0.1',
						rtls: false,
						received: new Date(),
					}),
				)();

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

				// What was stored reads back the same, JSON-safe, with the exact raw bytes.
				expect(messages.get('fuzz@fuzz.test', record._id)).toEqual(JSON.parse(JSON.stringify(record)));
				const stored = messages.content('fuzz@fuzz.test', record._id)!.raw();
				expect(Buffer.isBuffer(stored) && stored.equals(raw)).toBe(true);
			}),
			{ numRuns: FUZZ_RUNS },
		);
		console.log(`fuzz: ${FUZZ_RUNS} messages stored, ${unparsed} of them unparsed (raw kept)`);
	}, 90_000);
});
