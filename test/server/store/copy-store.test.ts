import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { OutgoingRecord } from 'mailroom-server/dist/schemas/outgoing';
import type { WebhookAttempt } from 'mailroom-server/dist/schemas/webhook';
import { openPostgresStore } from 'mailroom-server/dist/store/postgres/open';
import { TABLES } from 'mailroom-server/dist/store/copy/tables';
import { reserveForwarding } from '../../helpers/addresses';
import { query, withQueries } from '../../helpers/database';
import { LARGE_MESSAGE, composeMail, largeBody } from '../../helpers/large-messages';
import { dataDirs, startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { runCli, withDatabase, type CliResult } from '../../helpers/mailroom-cli';
import { enc, sendMail, sendRawTo } from '../../helpers/messages';
import { postOutgoing, senderAccount, type Sent } from '../../helpers/outgoing';
import { deliveryReport, sendReport } from '../../helpers/delivery-reports';
import { freePort } from '../../helpers/ports';
import { startPostgres, type TestPostgres } from '../../helpers/postgres';
import { startTestRelay, type TestRelay } from '../../helpers/smtp-relay';
import { subscribe, waitForStatus, webhookStatus } from '../../helpers/webhooks';
import { WebhookReceiver, waitFor } from '../../helpers/webhook-receiver';

const newDataDir = dataDirs();

// Real processes, two servers and some 500 reads of each: minutes on a busy machine.
jest.setTimeout(120_000);

/**
 * What both servers run with, so that their answers can be compared byte for byte: the same public URL (attachment links
 * in payloads), room for the many reads, the same local domain, and retries far enough apart that nothing moves between
 * the last look at the SQLite server and the copy.
 */
const SHARED = {
	publicUrl: 'http://mailroom.copy.test',
	rateLimitKey: 1_000_000,
	rateLimitIp: 1_000_000,
	localDomains: ['copy.test'],
	relayRetryDelays: [3_600_000],
	webhookRetrySchedule: [0, 200, 3_600_000],
	webhookTimeout: 2000,
};

type Who = 'admin' | 'alice' | 'bob' | 'revoked';
type Keys = Record<Who, string>;

/** A GET to compare between the servers, with the key of `as`. */
interface Read {
	path: string;
	as: Who;
}

/** Inboxes of the filled store, with who reads them (an inbox private to alice or bob with their key; public ones with admin's). */
const INBOXES: Record<string, Who> = {
	'pub@public.test': 'admin',
	'big@public.test': 'admin',
	'text@bodies.test': 'admin',
	'alias@public.test': 'admin',
	'fwd@copy.test': 'admin',
	'hooked@copy.test': 'alice',
	'forwarder@copy.test': 'alice',
	'later-hook@copy.test': 'alice',
	'any@alice.test': 'alice',
	'inside@alice.test': 'alice',
	'all@alice.test': 'alice',
	'bob@copy.test': 'bob',
};

/** What an account reads of itself; search and filters cover private mail of reserved addresses and of the owned domain. */
const ACCOUNT_PATHS = [
	'/api/me',
	'/api/me/stats',
	'/api/me/keys',
	'/api/me/chaos',
	'/api/addresses',
	'/api/domains',
	'/api/inbox?limit=100',
	'/api/inbox-search?query=copy.test',
	'/api/inbox-search?query=alice.test',
	'/api/inbox-search?query=HOOKED',
	'/api/inbox-search?query=in',
	'/api/inbox-search?query=hello%20-subject%3Ahooked',
	'/api/inbox-search?query=from%3A%22hooked%20sender%22',
	'/api/inbox-filter?andFrom=sender',
	'/api/inbox-filter?andRead=true',
	'/api/outgoing-messages',
	'/api/webhook-activity',
	'/api/webhook-secret',
	'/api/addresses/starred/messages',
	'/api/domains/alice.test',
	'/api/domains/alice.test/messages',
];

/** Every GET of the API about the store's contents: each account's views, and every inbox and message with all its parts. */
async function readsOf(server: TestMailroom, keys: Keys): Promise<Read[]> {
	const reads: Read[] = (['admin', 'alice', 'bob', 'revoked'] as const).flatMap((as) => ACCOUNT_PATHS.map((path) => ({ path, as })));
	// Each attempt of Recent Activity with what it sent and got back (webhook_exchanges).
	for (const as of ['alice', 'bob'] as const) {
		const activity = (await server.api<WebhookAttempt[]>('/api/webhook-activity', { key: keys[as] })).body;
		reads.push(...activity.map((attempt) => ({ path: `/api/webhook-attempts/${attempt._id}`, as })));
	}
	for (const [inbox, as] of Object.entries(INBOXES)) {
		const address = enc(inbox);
		const listing = `/api/addresses/${address}/messages?limit=100`;
		reads.push(
			...[listing, `/api/addresses/${address}/message-count`, `/api/addresses/${address}`, `/api/addresses/${address}/webhooks`].map(
				(path) => ({ path, as }),
			),
		);
		for (const message of (await server.api<MessageRecord[]>(listing, { key: keys[as] })).body) {
			const one = `/api/addresses/${address}/messages/${message._id}`;
			const paths = [one, `${one}/headers`, `${one}/attachments`, `${one}/payload`, `${one}/webhook-status`];
			paths.push(...['text', 'raw', 'body', 'dirty'].map((route) => `/api/${route}/${address}/${message._id}`));
			paths.push(...(message.attachments ?? []).map((checksum) => `${one}/attachments/${checksum}`));
			reads.push(...paths.map((path) => ({ path, as })));
		}
	}
	return reads;
}

/** What the server answers to each read: status, type and body (long or binary bodies by their SHA-256). */
async function answers(server: TestMailroom, reads: Read[], keys: Keys): Promise<Record<string, string>> {
	const seen: Record<string, string> = {};
	for (const { path, as } of reads) {
		const response = await fetch(`${server.httpUrl}${path}`, { headers: { 'Service-Key': keys[as] } });
		const bytes = Buffer.from(await response.arrayBuffer());
		const type = response.headers.get('content-type') ?? '';
		const shown = bytes.length <= 16_384 && /json|text/.test(type);
		const body = shown ? bytes.toString() : `${bytes.length} bytes, SHA-256 ${createHash('sha256').update(bytes).digest('hex')}`;
		seen[`GET ${path} as ${as}`] = `${response.status} ${type} ${body}`;
	}
	return seen;
}

/** The rows of every table copied, counted in the SQLite store of `dataDir` or in the PostgreSQL database `url`. */
function sqliteCounts(dataDir: string): Record<string, number> {
	return withDatabase(dataDir, (db) =>
		Object.fromEntries(TABLES.map(({ name }) => [name, db.prepare(`SELECT count(*) AS n FROM ${name}`).pluck().get() as number])),
	);
}

async function postgresCounts(url: string, tables = TABLES.map(({ name }) => name)): Promise<Record<string, number>> {
	// On one connection: one for each table would each cost a backend and a password exchange.
	return withQueries({ config: { dataDir: '', databaseUrl: url } }, async (rows) => {
		const counts: Record<string, number> = {};
		for (const table of tables) counts[table] = (await rows<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))[0].n;
		return counts;
	});
}

const pgQuery = <Row>(url: string, sql: string, params: unknown[] = []) =>
	query<Row>({ config: { dataDir: '', databaseUrl: url } }, sql, params);

/** Plain SQL on a database, outside Mailroom (to break it on purpose). */
async function onDatabase<T>(url: string, use: (client: Client) => Promise<T>): Promise<T> {
	const client = new Client({ connectionString: url });
	await client.connect();
	try {
		return await use(client);
	} finally {
		await client.end();
	}
}

/**
 * A database with Mailroom's schema and nothing else (what a node's first open makes of an empty one): a copy of the run's
 * migrated one, opened once (which makes its encryptedInbox key).
 */
async function migratedDatabase(postgres: TestPostgres): Promise<string> {
	const url = await postgres.newDatabase({ migrated: true });
	await (await openPostgresStore(url, { node: 'test', role: 'admin' })).close();
	return url;
}

const copyStore = (from: string, to: string) => runCli(['copy-store', '--from-data-dir', from, '--to-database-url', to]);

/** A refusal or failure: exit code 2 and one line on standard error. */
function expectOneLineFailure(result: CliResult, message: RegExp): void {
	expect(result.code).toBe(2);
	expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(message)]);
}

/** Stores filled through a real server on SQLite, copied with `mailroom copy-store` as its own process. */
describe('mailroom copy-store', () => {
	let postgres: TestPostgres;
	let receiver: WebhookReceiver;
	let relay: TestRelay;
	/** Whether the relay puts off later@remote.test (451), and the receiver's /later endpoint answers 503. */
	let relayRefusing = true;
	let laterDown = true;
	let sourceDir: string;
	let keys: Keys;
	let reads: Read[];
	let before: Record<string, string>;
	/** The encryptedInbox alias of alias@public.test, handed out by the SQLite server. */
	let alias: string;
	let laterMessageId: string;

	beforeAll(async () => {
		postgres = await startPostgres();
		receiver = new WebhookReceiver();
		let hookRequests = 0;
		receiver.reply = (request) => {
			if (request.url === '/hook') return { status: hookRequests++ === 0 ? 500 : 200 };
			if (request.url === '/catch') return { status: 410 };
			if (request.url === '/later') return { status: laterDown ? 503 : 200 };
			return { status: 200 };
		};
		await receiver.listen();
		relay = await startTestRelay({
			refuse: (recipient) => (relayRefusing && recipient.startsWith('later@') ? { code: 451, message: 'Try again later' } : undefined),
		});
		sourceDir = newDataDir();
		const source = await startTestMailroom({
			databaseUrl: undefined,
			dataDir: sourceDir,
			spoolThreshold: 64 * 1024,
			relayUrl: relay.url,
			...SHARED,
		});
		try {
			({ keys, alias, laterMessageId } = await fill(source, receiver.url));
			reads = await readsOf(source, keys);
			before = await answers(source, reads, keys);
		} finally {
			await source.stop({ removeData: false });
		}
	}, 300_000);

	afterAll(async () => {
		await receiver.close();
		await relay.close();
		await postgres.stop();
	});

	describe('into an empty database', () => {
		let url: string;
		let copied: CliResult;
		let server: TestMailroom | undefined;
		const startServer = async () => (server = await startTestMailroom({ databaseUrl: url, relayUrl: relay.url, ...SHARED }));
		beforeAll(async () => {
			url = await postgres.newDatabase();
			copied = await copyStore(sourceDir, url);
		});
		afterAll(async () => {
			await server?.stop();
		});

		it('exits 0 after printing each table and a summary', () => {
			expect(copied).toMatchObject({ code: 0, stderr: '' });
			const lines = copied.stdout.trimEnd().split('\n');
			for (const { name } of TABLES)
				expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${name}: [\\d,]+ rows?, [\\d.]+ k?[MG]?B in [\\d.]+ s$`)));
			expect(lines).toContainEqual(expect.stringMatching(/^messages_search: [\d,]+ entr(y|ies) \(mail of reserved addresses\)/));
			expect(lines.at(-1)).toMatch(
				/^Copied [\d,]+ rows \([\d.]+ MB\) from .+ into 127\.0\.0\.1:\d+\/\w+ in [\d.]+ s: [\d,]+ rows\/s, [\d.]+ k?[MG]?B\/s\./,
			);
		});

		it('copies every row of every table', async () => {
			const counts = sqliteCounts(sourceDir);
			expect(await postgresCounts(url)).toEqual(counts);
			// Nothing is missing from the store that was filled: each table has rows (the large message's pieces too).
			expect(Object.entries(counts).filter(([, n]) => n === 0)).toEqual([]);
		});

		it('indexes for search the same messages as SQLite did: the private ones, a reserved address in an owned domain included', async () => {
			const indexed = withDatabase(sourceDir, (db) => db.prepare('SELECT rowid FROM messages_search ORDER BY rowid').pluck().all());
			const copied = (await pgQuery<{ seq: number }>(url, 'SELECT seq FROM messages_search ORDER BY seq')).map((row) => row.seq);
			expect(copied).toEqual(indexed);
			const inside = await pgQuery<{ seq: number }>(url, "SELECT seq FROM messages WHERE inbox = 'inside@alice.test'");
			expect(inside).toHaveLength(2);
			expect(copied).toEqual(expect.arrayContaining(inside.map((row) => row.seq)));
		});

		it('serves everything as the SQLite server did, byte for byte: listings, records, bodies, raw sources, attachments, search, activity, sent mail', async () => {
			await startServer();
			const after = await answers(server!, reads, keys);
			expect(after).toEqual(before);
			// Not two sets of errors alike: every message's record, raw source, text, payload and attachments were read.
			const messageReads = Object.entries(after).filter(([read]) =>
				/\/api\/(raw|text)\/|\/messages\/[^/ ]+( |\/payload|\/attachments)/.test(read),
			);
			expect(messageReads.length).toBeGreaterThan(80);
			expect(messageReads.filter(([, answer]) => !answer.startsWith('200 '))).toEqual([]);
			expect(after['GET /api/me as revoked']).toMatch(/^401 /);
			// Attempts' exchanges came across: requests with their signed headers, and responses.
			const exchanges = Object.entries(after).filter(([read]) => read.startsWith('GET /api/webhook-attempts/'));
			expect(exchanges.length).toBe(11);
			expect(
				exchanges.filter(([, answer]) => /^200 .*"request":\{"method":"POST".*"webhook-signature"/i.test(answer)).length,
			).toBeGreaterThan(0);
			expect(exchanges.filter(([, answer]) => /^200 .*"response":\{"statusCode":/.test(answer)).length).toBeGreaterThan(0);
			expect(after['GET /api/inbox-search?query=alice.test as alice']).toContain('reserved in a domain');
			// The index holds bodies and names too, made as the engine makes them: found alike, and found at all.
			expect(after['GET /api/inbox-search?query=hello%20-subject%3Ahooked as alice']).toContain('catch-all mail');
			expect(after['GET /api/inbox-search?query=hello%20-subject%3Ahooked as alice']).not.toContain('hooked plain');
			expect(after['GET /api/inbox-search?query=from%3A%22hooked%20sender%22 as alice']).toContain('hooked plain');
			const [big] = (await server!.api<MessageRecord[]>('/api/addresses/big%40public.test/messages', { key: keys.admin })).body;
			expect(after[`GET /api/raw/big%40public.test/${big._id} as admin`]).toContain(sha256(await bigRaw()));
		});

		it('keeps the encryptedInbox key: mail to an alias handed out before still routes', async () => {
			await sendMail(server!, { to: `${alias}@public.test`, subject: 'through the old alias' });
			const [newest] = (await server!.api<MessageRecord[]>('/api/addresses/alias%40public.test/messages', { key: keys.admin })).body;
			expect(newest).toMatchObject({ subject: 'through the old alias', inbox: 'alias@public.test', originalInbox: `${alias}@public.test` });
		});

		it('gives new mail new ids and sequence numbers', async () => {
			const highest = async () =>
				(await pgQuery<{ seq: number; content: number }>(url, 'SELECT max(seq) AS seq, max(content_id) AS content FROM messages'))[0];
			const ids = async () => (await pgQuery<{ id: string }>(url, 'SELECT id FROM messages')).map((row) => row.id);
			const copiedIds = await ids();
			const was = await highest();
			const [id] = await sendMail(server!, { to: 'pub@public.test', subject: 'after the copy' });
			expect(copiedIds).not.toContain(id);
			expect(await ids()).toHaveLength(copiedIds.length + 1);
			const now = await highest();
			expect(now.seq).toBe(was.seq + 1);
			expect(now.content).toBe(was.content + 1);
		});

		it('carries pending work over: a webhook delivery and an outgoing message still to retry are made by the new node', async () => {
			await server!.stop();
			server = undefined;
			// As if their retries had come due, and their receivers were back.
			await pgQuery(url, "UPDATE webhook_deliveries SET next_attempt = ? WHERE status = 'pending'", [Date.now()]);
			await pgQuery(url, 'UPDATE outbox SET next_attempt = ?', [Date.now()]);
			laterDown = false;
			relayRefusing = false;
			const attemptsBefore = (await pgQuery<{ seq: number }>(url, 'SELECT max(seq) AS seq FROM webhook_attempts'))[0].seq;
			await startServer();
			expect(await waitForStatus(server!, keys.alice, 'later-hook@copy.test', laterMessageId, 'delivered')).toMatchObject({ attempts: 3 });
			const relayed = await waitFor(() => relay.received.find((mail) => mail.to.includes('later@remote.test')), 'the relay to get it');
			expect(relayed.parsed.subject).toBe('retried on PostgreSQL');
			expect(relayed.parsed.text).toBe(LATER_TEXT);
			const sent = await waitFor(async () => {
				const list = (await server!.api<OutgoingRecord[]>('/api/outgoing-messages', { key: keys.alice })).body;
				return list.find((message) => message.subject === 'retried on PostgreSQL' && message.status === 'delivered');
			}, 'the outgoing message to be delivered');
			expect(sent.attempts).toBe(2);
			const [newAttempt] = (
				await server!.api<WebhookAttempt[]>('/api/webhook-activity?address=later-hook%40copy.test', { key: keys.alice })
			).body;
			expect(newAttempt).toMatchObject({ attempt: 3, status: 'delivered' });
			expect(
				(await pgQuery<{ seq: number }>(url, 'SELECT seq FROM webhook_attempts WHERE id = ?', [newAttempt._id]))[0].seq,
			).toBeGreaterThan(attemptsBefore);
		});
	});

	it('copies one snapshot of a store that a server is still storing mail in, without what arrives meanwhile', async () => {
		const live = await startTestMailroom({ databaseUrl: undefined });
		let sending = true;
		const sent = (async () => {
			let n = 0;
			for (; sending; n++) {
				await sendMail(live, {
					to: `live${n % 5}@public.test`,
					subject: `live ${n}`,
					attachments: [{ filename: 'n.txt', content: `note ${n}` }],
				});
			}
			return n;
		})();
		try {
			await waitFor(
				// live4 gets every fifth message from the fifth on: its fifth means 25 stored.
				async () => (await live.api<{ count: number }>('/api/addresses/live4%40public.test/message-count')).body.count >= 5,
				'25 messages',
				// One message a connection, one after another: seconds on a busy machine.
				30_000,
			);
			const url = await postgres.newDatabase();
			expect(await copyStore(live.config.dataDir, url)).toMatchObject({ code: 0, stderr: '' });
			sending = false;
			const stored = await sent;
			const copied = await postgresCounts(url, ['messages', 'contents', 'content_attachments', 'attachment_contents']);
			// Each message has its own content and attachment: a copy of one moment has as many of each.
			expect(copied).toEqual({
				messages: copied.messages,
				contents: copied.messages,
				content_attachments: copied.messages,
				attachment_contents: copied.messages,
			});
			expect(copied.messages).toBeGreaterThanOrEqual(25);
			expect(copied.messages).toBeLessThan(stored);
		} finally {
			sending = false;
			await sent;
			await live.stop();
		}
	});

	it('refuses a database that is not empty, and leaves it as it was', async () => {
		const url = await postgres.newDatabase({ migrated: true });
		// A node was started on it: it made the admin account and its key.
		await (await startTestMailroom({ databaseUrl: url })).stop();
		const tables = [...TABLES.map(({ name }) => name), 'messages_search'];
		const counts = await postgresCounts(url, tables);
		const secrets = await pgQuery(url, 'SELECT * FROM server_secrets');
		expectOneLineFailure(
			await copyStore(sourceDir, url),
			/^mailroom: the database 127\.0\.0\.1:\d+\/\w+ is not empty \(it has rows in accounts, api_keys\): copy-store copies only into an empty database$/,
		);
		expect(await postgresCounts(url, tables)).toEqual(counts);
		expect(await pgQuery(url, 'SELECT * FROM server_secrets')).toEqual(secrets);
	});

	describe('a copy that fails half way leaves the database empty', () => {
		/** Every table the copy writes, and the search index, hold no row. */
		async function expectEmpty(url: string): Promise<void> {
			const counts = await postgresCounts(url, [
				...TABLES.filter((table) => table.name !== 'server_secrets').map(({ name }) => name),
				'messages_search',
			]);
			expect(Object.entries(counts).filter(([, n]) => n > 0)).toEqual([]);
		}

		it('on an error in the database (an injected failure on one of the last tables)', async () => {
			const url = await migratedDatabase(postgres);
			const secrets = await pgQuery(url, 'SELECT * FROM server_secrets');
			await onDatabase(url, async (client) => {
				await client.query(
					"CREATE FUNCTION fail_copy() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$",
				);
				await client.query('CREATE TRIGGER fail_copy BEFORE INSERT ON outbox FOR EACH STATEMENT EXECUTE FUNCTION fail_copy()');
			});
			const result = await copyStore(sourceDir, url);
			expectOneLineFailure(
				result,
				/^mailroom: the copy into 127\.0\.0\.1:\d+\/\w+ failed and was undone \(nothing of it is there\): injected failure$/,
			);
			// It had copied the messages, among others, before it failed.
			expect(result.stdout).toMatch(/^messages: [\d,]+ rows/m);
			await expectEmpty(url);
			// The encryptedInbox key made when the database was first opened is still its own.
			expect(await pgQuery(url, 'SELECT * FROM server_secrets')).toEqual(secrets);
		});

		it('on a lost connection', async () => {
			const url = await migratedDatabase(postgres);
			// The copy stops at webhook_attempts, where its connection is then cut.
			await onDatabase(url, async (client) => {
				await client.query(
					'CREATE FUNCTION hold_copy() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(60); RETURN NULL; END $$',
				);
				await client.query('CREATE TRIGGER hold_copy BEFORE INSERT ON webhook_attempts FOR EACH STATEMENT EXECUTE FUNCTION hold_copy()');
			});
			const copying = copyStore(sourceDir, url);
			await onDatabase(url, async (client) => {
				const held = await waitFor(async () => {
					const { rows } = await client.query<{ pid: number }>(
						"SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'PgSleep'",
					);
					return rows[0];
				}, 'the copy to reach webhook_attempts');
				await client.query('SELECT pg_terminate_backend($1)', [held.pid]);
			});
			const result = await copying;
			expectOneLineFailure(
				result,
				/^mailroom: the copy into 127\.0\.0\.1:\d+\/\w+ failed and was undone \(nothing of it is there\): .*terminat/i,
			);
			expect(result.stdout).toMatch(/^webhook_deliveries: [\d,]+ rows/m);
			await expectEmpty(url);
		});
	});

	it('refuses with one line a source that is missing, or of a newer schema, and a target it cannot reach', async () => {
		const url = await postgres.newDatabase();
		const newer = newDataDir();
		mkdirSync(newer, { recursive: true });
		copyFileSync(join(sourceDir, 'mailroom.sqlite'), join(newer, 'mailroom.sqlite'));
		withDatabase(newer, (db) => db.pragma('user_version = 999'), { write: true });
		const nowhere = `postgres://postgres:secret@127.0.0.1:${await freePort()}/mailroom`;
		// The three copies at once, each its own process.
		const [missing, ofNewer, unreachable] = await Promise.all([
			copyStore(join(sourceDir, 'nothing-here'), url),
			copyStore(newer, url),
			copyStore(sourceDir, nowhere),
		]);
		expectOneLineFailure(missing, /^mailroom: there is no Mailroom database in .*nothing-here/);
		expectOneLineFailure(ofNewer, /^mailroom: the database in .* was written by a newer Mailroom \(schema 999; this version knows \d+\)/);
		expectOneLineFailure(unreachable, /^mailroom: cannot reach PostgreSQL at 127\.0\.0\.1:\d+: .*ECONNREFUSED/);
		// None of them wrote anything.
		expect(await pgQuery(url, "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'public'")).toEqual([{ n: 0 }]);
	});
});

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The text of the outgoing message left to retry: 100 KB, so it is composed into the spool and kept in pieces. */
const LATER_TEXT = 'A line of the message the relay takes only later.\n'.repeat(2000);

/**
 * LARGE_MESSAGE with a file of 1.2 MB rather than 3 MB (there twice, stored once): still spooled past the source's
 * threshold of 64 KB, its raw source and attachments kept in pieces, with less than half the bytes to store, copy and read.
 */
const bigFile = randomBytes(1200 * 1024);
let bigBuilt: Promise<Buffer> | undefined;
const bigRaw = () =>
	(bigBuilt ??= composeMail({
		...LARGE_MESSAGE,
		attachments: LARGE_MESSAGE.attachments!.map((file) => (file.filename === 'pic.png' ? file : { ...file, content: bigFile })),
	}));

/**
 * Fills a store through the API and SMTP: accounts and keys (one revoked), credits, reserved addresses with a webhook,
 * forward, enablews and Slack, a domain with a catch-all (and an address reserved in it), a subscription, a rotated
 * signing secret, public and private mail (attachments shared, a large spooled message and a large body in pieces),
 * labels, folder, read and star, webhook activity (retried, refused, still pending), sent mail (delivered, relayed,
 * queued, a forward, a reply) and an encryptedInbox alias handed out.
 */
async function fill(server: TestMailroom, hooks: string): Promise<{ keys: Keys; alias: string; laterMessageId: string }> {
	const alice = await server.createAccount('alice', 100);
	const bob = await server.createAccount('bob', 5);
	const old = await server.api<{ id: string; key: string }>('/api/me/keys', { method: 'POST', key: alice.key, body: { label: 'old' } });
	expect((await server.api(`/api/me/keys/${old.body.id}`, { method: 'DELETE', key: alice.key })).status).toBe(200);
	const keys: Keys = { admin: server.adminKey, alice: alice.key, bob: bob.key, revoked: old.body.key };

	await reserveForwarding(server, alice.key, 'hooked@copy.test', { webhook: `${hooks}/hook`, enablews: true });
	await reserveForwarding(server, alice.key, 'forwarder@copy.test', { forward: 'fwd@copy.test' });
	await reserveForwarding(server, alice.key, 'later-hook@copy.test', { webhook: `${hooks}/later` });
	await reserveForwarding(server, bob.key, 'bob@copy.test', { webhookSlack: `${hooks}/slack`, webhookSlackToFrom: true });
	await subscribe(server, alice.key, 'hooked@copy.test', { url: `${hooks}/sub`, filter: { hasAttachments: true } });
	expect((await server.api('/api/domains/alice.test', { method: 'POST', key: alice.key })).status).toBe(200);
	expect(
		(await server.api('/api/domains/alice.test', { method: 'PUT', key: alice.key, body: { catchAll: 'all@alice.test' } })).status,
	).toBe(200);
	await reserveForwarding(server, alice.key, 'all@alice.test', { webhook: `${hooks}/catch` });
	expect((await server.api('/api/addresses/inside@alice.test', { method: 'POST', key: alice.key })).status).toBe(200);
	expect((await server.api('/api/webhook-secret/rotate', { method: 'POST', key: alice.key })).status).toBe(200);
	// Chaos settings kept but off (account_chaos), so the mail below is answered as usual.
	const chaos = { enabled: false, rcptTo: { code: 451, probability: 0.5 }, data: { delayMs: 100 } };
	expect((await server.api('/api/me/chaos', { method: 'PUT', key: bob.key, body: chaos })).status).toBe(200);

	const shared = { filename: 'shared.txt', content: 'the same file in two messages' };
	await sendMail(server, { to: 'pub@public.test', subject: 'public one', attachments: [shared] });
	await sendMail(server, { to: 'pub@public.test', subject: 'public two', html: '<p>café <b>two</b></p>', attachments: [shared] });
	const [hookedPlain] = await sendMail(server, {
		from: '"Hooked Sender" <sender@sender.test>',
		to: 'hooked@copy.test',
		subject: 'hooked plain',
	});
	const [hookedFile] = await sendMail(server, {
		to: 'hooked@copy.test',
		subject: 'hooked with file',
		attachments: [{ filename: 'a.bin', content: Buffer.from([0, 1, 2, 255]) }],
	});
	await sendMail(server, { to: 'forwarder@copy.test', subject: 'to forward' });
	await sendMail(server, { to: 'any@alice.test', subject: 'catch-all mail' });
	await sendMail(server, { to: 'inside@alice.test', subject: 'reserved in a domain' });
	await sendMail(server, { to: ['pub@public.test', 'inside@alice.test'], subject: 'two recipients, one content' });
	const [laterMessageId] = await sendMail(server, { to: 'later-hook@copy.test', subject: 'delivered later' });
	await sendMail(server, { to: 'bob@copy.test', subject: 'for bob' });
	const [aliasSource] = await sendMail(server, { to: 'alias@public.test', subject: 'alias source' });
	await sendRawTo(server, 'big@public.test', await bigRaw(), 'big@sender.test');
	await sendRawTo(server, 'text@bodies.test', await largeBody('text@bodies.test'));

	const state = (id: string, change: string) =>
		server.api(`/api/addresses/hooked%40copy.test/messages/${id}/${change}`, { method: 'PUT', key: alice.key });
	expect((await state(hookedPlain, 'labels/important')).status).toBe(200);
	expect((await state(hookedPlain, 'star/true')).status).toBe(200);
	expect((await state(hookedFile, 'read/true')).status).toBe(200);
	expect((await state(hookedFile, 'folder/spam')).status).toBe(200);

	const send = async (body: Record<string, unknown>, status: string) =>
		expect((await postOutgoing(server, alice.key, { from: 'hooked@copy.test', text: 'sent', ...body })).body).toMatchObject({ status });
	// Its reply hook waits for a reply that does not come before the copy.
	await send({ to: 'bob@copy.test', subject: 'local to bob', replyHook: { url: `${hooks}/replies` } }, 'delivered');
	await send({ to: 'friend@remote.test', cc: 'other@remote.test', subject: 'relayed' }, 'delivered');
	await send({ inReplyTo: hookedPlain, text: 'a reply' }, 'delivered');
	// Past the spool threshold: composed into the spool, its raw source waits in the outbox in pieces.
	await send({ to: 'later@remote.test', subject: 'retried on PostgreSQL', text: LATER_TEXT }, 'queued');

	const { encryptedInbox } = (
		await server.api<{ encryptedInbox: string }>(`/api/addresses/alias%40public.test/messages/${aliasSource}/payload`, { key: keys.admin })
	).body;

	// Carol's relayed mail bounces: a return path, delivery events, a suppression; her event subscription (complaints only)
	// and her address (no webhook) post nothing, so the attempts counted below stay alice's and bob's.
	const carol = await senderAccount(server, 'carol', 'carol@copy.test', 5);
	expect(
		(await server.api('/api/event-webhooks', { method: 'POST', key: carol.key, body: { url: `${hooks}/events`, events: ['complained'] } }))
			.status,
	).toBe(201);
	const bounced = (
		await postOutgoing<Sent>(server, carol.key, { from: 'carol@copy.test', to: 'gone@remote.test', subject: 'bounces', text: 't' })
	).body;
	await sendReport(server, deliveryReport('postfix', bounced, bounced.recipients[0]), bounced.recipients[0].returnPath!);
	await waitFor(async () => (await server.api<unknown[]>('/api/suppressions', { key: carol.key })).body.length === 1, 'the bounce');

	// Everything set off has happened: the forward stored, and every webhook attempt but the later ones' third made.
	await waitFor(
		async () => (await server.api<MessageRecord[]>('/api/addresses/fwd%40copy.test/messages')).body.length === 1,
		'the forward',
	);
	await waitFor(
		async () => (await webhookStatus(server, alice.key, 'later-hook@copy.test', laterMessageId)).body.attempts === 2,
		'two attempts at /later',
	);
	const attempts = async (key: string) => (await server.api<WebhookAttempt[]>('/api/webhook-activity', { key })).body.length;
	// hooked: 3 (one retried) and its subscription 1; the catch-all: 3 refused; later: 2. bob's Slack: 2.
	await waitFor(async () => (await attempts(alice.key)) === 9 && (await attempts(bob.key)) === 2, 'the webhook attempts');
	return { keys, alias: encryptedInbox, laterMessageId };
}
