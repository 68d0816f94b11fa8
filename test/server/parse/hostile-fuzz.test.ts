import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { ParserPool } from 'mailroom-server/dist/parse/parser-pool';
import { parseMessage } from 'mailroom-server/dist/parse/parse-message';
import { parseSpooled } from 'mailroom-server/dist/parse/parse-spooled';
import { openDatabase, type Db } from 'mailroom-server/dist/store/database';
import { MessageStore } from 'mailroom-server/dist/store/messages';
import { tempDataDir } from '../../helpers/mailroom';

/**
 * Property-based fuzzing of the raw-message-to-record path: parsing on the worker pool (with
 * its fallback to an unparsed record) and a real insert into SQLite. FUZZ_RUNS raises the
 * number of cases for a longer local run; CI runs the default.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);

const RECORD_FIELDS = [
	'_id',
	'from',
	'to',
	'cc',
	'bcc',
	'subject',
	'savedBy',
	'originalInbox',
	'inbox',
	'domain',
	'received',
	'size',
	'attachments',
	'ip',
	'via',
	'folder',
	'labels',
	'read',
	'rtls',
	'links',
	'spam',
].sort();

const HEADER_NAMES = [
	'From',
	'To',
	'Cc',
	'Bcc',
	'Subject',
	'Reply-To',
	'Date',
	'Message-ID',
	'MIME-Version',
	'Content-Type',
	'Content-Transfer-Encoding',
	'Content-Disposition',
	'X-Priority',
];

/** Pieces that steer the parser into its odd corners. */
const TRICKY = [
	'multipart/mixed; boundary="b"',
	'multipart/alternative; boundary=b',
	'multipart/mixed',
	'message/rfc822',
	'text/html; charset=x-unknown',
	'text/plain; charset=utf-16',
	'text/plain; charset="iso-2022-jp"',
	'base64',
	'quoted-printable',
	'8bit',
	'binary',
	'=?utf-8?B?////?=',
	'=?iso-8859-1?Q?J=FCrgen=?=',
	'=?x-unknown?Q?a?=',
	'<a@b.test>',
	'"x" <y@z.test>, g: a@b.test, c@d.test;',
	'((((',
	')>',
	'\u0000',
	'attachment; filename="../../etc/passwd"',
	"inline; filename*=utf-8''%E2%82%AC.txt",
	'Thu, 31 Feb 2099 25:61:61 +9999',
];
const BODY_LINES = [
	'--b',
	'--b--',
	'Content-Type: text/plain',
	'Content-Type: multipart/mixed; boundary=b',
	'Content-Transfer-Encoding: base64',
	'',
	'.',
	'..',
	'=',
	'=ZZ',
	'=E9=',
	'AAAA====',
	'<html><a href="https://x.test/a">x</a>',
	'https://example.test/path?q=1',
];

const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 60 }), fc.constantFrom(...TRICKY), fc.emailAddress());
const header = fc.tuple(
	fc.oneof(fc.constantFrom(...HEADER_NAMES), fc.stringMatching(/^[!-9;-~]{1,20}$/)),
	fc.array(text, { maxLength: 4 }).map((parts) => parts.join(' ')),
);
const bodyLine = fc.oneof(
	fc.string({ unit: 'binary', maxLength: 100 }),
	fc.constantFrom(...BODY_LINES),
	fc.base64String({ maxLength: 120 }),
);

const structured = fc
	.record({
		headers: fc.array(header, { maxLength: 14 }),
		body: fc.array(bodyLine, { maxLength: 40 }),
		eol: fc.constantFrom('\r\n', '\r\n', '\n', '\r'),
		encoding: fc.constantFrom('utf8', 'latin1') as fc.Arbitrary<BufferEncoding>,
	})
	.map(({ headers, body, eol, encoding }) =>
		Buffer.from([...headers.map(([name, value]) => `${name}: ${value}`), '', ...body].join(eol), encoding),
	);
const rawMessage = fc.oneof(
	{ weight: 4, arbitrary: structured },
	{ weight: 1, arbitrary: fc.uint8Array({ maxLength: 4000 }).map((bytes) => Buffer.from(bytes)) },
);

/** As readRaw hands it to the parser: in a SharedArrayBuffer. */
function shared(raw: Buffer): Buffer {
	const copy = Buffer.from(new SharedArrayBuffer(raw.length));
	raw.copy(copy);
	return copy;
}

function expectAddresses(list: unknown): void {
	expect(Array.isArray(list)).toBe(true);
	for (const entry of list as unknown[]) {
		expect(Object.keys(entry as object).sort()).toEqual(['address', 'name']);
		expect(typeof (entry as { address: unknown }).address).toBe('string');
		expect(typeof (entry as { name: unknown }).name).toBe('string');
	}
}

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

	it(`parseMessage settles on any input, with a result or an Error (${RUNS} cases)`, async () => {
		await fc.assert(
			fc.asyncProperty(rawMessage, async (raw) => {
				const outcome: unknown = await parseMessage(raw).then(
					(parsed) => parsed.subject,
					(err: unknown) => err,
				);
				if (!(outcome instanceof Error)) expect(typeof outcome).toBe('string');
			}),
			{ numRuns: RUNS },
		);
	}, 90_000);

	it(`a spooled message parses as the same message in memory, its parts streamed to files (${RUNS} cases)`, async () => {
		let parsedBoth = 0;
		await fc.assert(
			fc.asyncProperty(rawMessage, async (raw) => {
				const dir = join(dataDir, 'spool', `fuzz-${parsedBoth}`);
				mkdirSync(dir, { recursive: true });
				const spoolPath = join(dir, 'message.eml');
				writeFileSync(spoolPath, raw);
				const settle = <T>(parse: Promise<T>) =>
					parse.then(
						(parsed) => ({ parsed }),
						(err: Error) => ({ failed: err.message }),
					);
				const [inMemory, spooled] = await Promise.all([
					settle(parseMessage(raw)),
					settle(parseSpooled({ spoolPath, byteLength: raw.length })),
				]);
				rmSync(dir, { recursive: true, force: true });
				expect('parsed' in spooled).toBe('parsed' in inMemory);
				if (!('parsed' in inMemory) || !('parsed' in spooled)) return;
				parsedBoth++;
				// Attachment content is a buffer in one and a file in the other; mailparser dates an empty Date header "now".
				const comparable = ({ attachments, date, ...rest }: typeof inMemory.parsed) => ({
					...rest,
					attachments: attachments.map(({ content, ...meta }) => meta),
				}); // eslint-disable-line @typescript-eslint/no-unused-vars
				expect(comparable(spooled.parsed)).toEqual(comparable(inMemory.parsed));
				const [spooledDate, keptDate] = [spooled.parsed.date, inMemory.parsed.date].map((date) =>
					date === null ? null : Date.parse(date),
				);
				if (spooledDate === null || keptDate === null) expect(spooledDate).toBe(keptDate);
				else expect(Math.abs(spooledDate - keptDate)).toBeLessThan(1000);
			}),
			{ numRuns: RUNS },
		);
		expect(parsedBoth).toBeGreaterThan(RUNS / 2);
	}, 90_000);

	it(`stores a spec 2.1 record for any input (${RUNS} cases)`, async () => {
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
			{ numRuns: RUNS },
		);
		console.log(`fuzz: ${RUNS} messages stored, ${unparsed} of them unparsed (raw kept)`);
	}, 90_000);
});
