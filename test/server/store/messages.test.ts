import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Fastify, { type FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { SHARED_SCHEMAS } from 'mailroom-server/dist/http/schemas';
import type { ParsedMail } from 'mailroom-server/dist/mail/parsed-mail';
import { ParserPool } from 'mailroom-server/dist/parse/parser-pool';
import { FolderSchema, type MessageRecord } from 'mailroom-server/dist/schemas/message';
import { RECORD_FIELDS } from '../../helpers/inboxes';
import { FUZZ_RUNS, rawMessage, shared } from '../../helpers/raw-messages';
import { ENGINES, insert, storePerBlock } from '../../helpers/stores';
import { queryColumn } from '../../helpers/database';

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

	function insertMail(m: Mail, inboxOf: (inbox: string) => string): Promise<MessageRecord[]> {
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
		return insert(current(), {
			raw: Buffer.from('raw'),
			parsed,
			ip: m.ip,
			via: m.ip,
			rtls: m.rtls,
			received: new Date(m.received),
			recipients: m.inboxes.map(inboxOf).map((inbox) => ({ inbox, originalInbox: inbox, domain: inbox.split('@')[1] })),
		});
	}

	it('renders any stored records and state as the schema serializer does, newest first', async () => {
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
					const ids = await queryColumn<string>(current(), 'SELECT id FROM messages WHERE inbox = ? ORDER BY received DESC, seq DESC', [
						inbox,
					]);
					const expected = await serialized(await Promise.all(ids.map(async (id) => (await store.get(inbox, id))!)));
					expect(await store.listInboxJson(inbox, 1000)).toBe(expected);
				}
			}),
			{ numRuns: Number(process.env.FUZZ_RUNS ?? 100) },
		);
	});

	it('pages with limit and until as before: newest first, until exclusive', async () => {
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
		const paged = (inbox: string) => `paged.${inbox}`;
		// Two share a millisecond: the store moves the later one on by 1 ms, so `until` never splits them.
		const ids: string[] = [];
		for (const offset of [0, 10, 10, 20]) ids.push((await insertMail({ ...m, received: base + offset }, paged))[0]._id);
		const list = async (limit: number, until?: number) =>
			(JSON.parse(await current().messages.listInboxJson('paged.a@x.test', limit, until)) as MessageRecord[]).map((r) => r._id);
		expect(await list(10)).toEqual([...ids].reverse());
		expect(await list(2)).toEqual([ids[3], ids[2]]);
		expect(await list(10, base + 11)).toEqual([ids[1], ids[0]]);
		expect(await list(10, base + 10)).toEqual([ids[0]]);
		expect(await list(10, base)).toEqual([]);
		expect(await current().messages.listInboxJson('nobody@x.test', 10)).toBe('[]');
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
				const [record] = await insert(current(), {
					raw: shared(raw),
					parsed,
					recipients: [{ inbox: 'fuzz@fuzz.test', originalInbox: 'fuzz@fuzz.test', domain: 'fuzz.test' }],
					ip: '192.0.2.1',
					via: '127.0.0.1',
					rtls: false,
					received: new Date(),
				});

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
				expect(await messages.get('fuzz@fuzz.test', record._id)).toEqual(JSON.parse(JSON.stringify(record)));
				const stored = await (await messages.content('fuzz@fuzz.test', record._id))!.raw();
				expect(Buffer.isBuffer(stored) && stored.equals(raw)).toBe(true);
			}),
			{ numRuns: FUZZ_RUNS },
		);
		console.log(`fuzz: ${FUZZ_RUNS} messages stored, ${unparsed} of them unparsed (raw kept)`);
	}, 90_000);
});
