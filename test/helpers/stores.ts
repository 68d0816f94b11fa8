import { afterAll, afterEach, beforeAll, beforeEach, expect } from '@jest/globals';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SpooledBytes } from 'mailroom-server/dist/bytes/spooled-bytes';
import type { ParsedIncomingMail } from 'mailroom-server/dist/mail/incoming-mail';
import type { ParsedAttachment, ParsedMail } from 'mailroom-server/dist/mail/parsed-mail';
import { parseMessage } from 'mailroom-server/dist/parse/parse-message';
import { parseSpooled } from 'mailroom-server/dist/parse/parse-spooled';
import { parseSearchQuery } from 'mailroom-server/dist/mail/search-query';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { Store } from 'mailroom-server/dist/store/store';
import { openStore } from 'mailroom-server/dist/store/open-store';
import { tempDataDir } from './mailroom';
import { startPostgres } from './postgres';

/** A store opened on its own for a test, with the settings that locate its database (for the query helpers). */
export interface TestStore extends Store {
	config: { dataDir: string; databaseUrl?: string };
}

/** The engines the store suites run on: one suite, two backends. */
export const ENGINES = ['sqlite', 'postgres'] as const;
export type Engine = (typeof ENGINES)[number];

/** Opens an empty store on `engine` (in a new data folder, or a new database), removed when it is closed. */
export async function openTestStore(engine: Engine): Promise<TestStore> {
	const postgres = engine === 'postgres' ? await startPostgres() : undefined;
	const config = { dataDir: tempDataDir(), durability: 'normal' as const, databaseUrl: await postgres?.newDatabase({ migrated: true }) };
	const store = await openStore(config, 'server', `test-${engine}`);
	const close = store.close.bind(store);
	return Object.assign(store, {
		config,
		close: async () => {
			await close();
			await postgres?.stop();
			rmSync(config.dataDir, { recursive: true, force: true });
		},
	});
}

/** A fresh store on `engine` for each test of the block (closed after it): the returned function gives the current one. */
export function storePerTest(engine: Engine): () => TestStore {
	let store: TestStore;
	beforeEach(async () => {
		store = await openTestStore(engine);
	});
	afterEach(() => store.close());
	return () => store;
}

/** One store on `engine` for all the tests of the block. */
export function storePerBlock(engine: Engine): () => TestStore {
	let store: TestStore;
	beforeAll(async () => {
		store = await openTestStore(engine);
	});
	afterAll(() => store.close());
	return () => store;
}

/** Stores a message as ingest does: in a write transaction. */
export function insert(store: Store, mail: ParsedIncomingMail): Promise<MessageRecord[]> {
	return store.transaction((parts) => parts.messages.insert(mail));
}

/** An attachment as the parser makes it, of `body`, a text file named after its checksum unless `overrides` say otherwise. */
export function attachment(checksum: string, body: string | Buffer, overrides: Partial<ParsedAttachment> = {}): ParsedAttachment {
	const content = Buffer.from(body);
	return {
		checksum,
		contentType: 'text/plain',
		fileName: `${checksum}.txt`,
		length: content.length,
		contentId: null,
		contentDisposition: 'attachment',
		transferEncoding: 'base64',
		content,
		...overrides,
	};
}

/** A parse as the parser makes it, with whatever `overrides` say. */
export function parsedMail(overrides: Partial<ParsedMail> = {}): ParsedMail {
	return {
		subject: 's',
		from: [{ address: 'a@x.test', name: '' }],
		to: [],
		cc: null,
		bcc: null,
		replyTo: null,
		messageId: '<m@x>',
		date: null,
		priority: 'normal',
		headers: [],
		text: 't',
		html: null,
		links: [],
		spam: 0,
		attachments: [],
		strippedText: 't',
		strippedSignature: null,
		codes: [],
		...overrides,
	};
}

/** Mail (its raw source "raw") to `inboxes`, each in the domain after its "@", received now unless `received` says otherwise. */
export function mailTo(inboxes: string[], parsed: Partial<ParsedMail> = {}, received = new Date()): ParsedIncomingMail {
	return {
		raw: Buffer.from('raw'),
		parsed: parsedMail(parsed),
		ip: '127.0.0.1',
		via: '127.0.0.1',
		rtls: false,
		received,
		recipients: inboxes.map((inbox) => ({ inbox, originalInbox: inbox, domain: inbox.slice(inbox.lastIndexOf('@') + 1) })),
	};
}

let spooled = 0;

/** `content` in a file of the store's data folder: a body as the parse of a large message leaves it. */
export function spooledFile(store: TestStore, content: string | Buffer): SpooledBytes {
	const folder = join(store.config.dataDir, 'spool', String(++spooled));
	mkdirSync(folder, { recursive: true });
	const spoolPath = join(folder, 'file');
	writeFileSync(spoolPath, content);
	return { spoolPath, byteLength: Buffer.byteLength(content) };
}

/** `raw` to `inbox`, spooled to a file and parsed from there, as the SMTP listener and a parser thread do with a large message. */
export async function spooledMail(store: TestStore, raw: Buffer, inbox: string): Promise<ParsedIncomingMail> {
	const message = spooledFile(store, raw);
	return { ...mailTo([inbox]), raw: message, parsed: await parseSpooled(message) };
}

/** `raw` to `inbox`, parsed in memory, as a message under the spool threshold is. */
export async function inMemoryMail(raw: Buffer, inbox: string): Promise<ParsedIncomingMail> {
	return { ...mailTo([inbox]), raw, parsed: await parseMessage(raw) };
}

/** The `_id`s of a JSON array of records. */
export const idsIn = (json: string) => (JSON.parse(json) as { _id: string }[]).map((record) => record._id);

/**
 * After the migration that indexes names and bodies, the private message of an upgraded store (account `acct`, its id
 * `private`, from Ann Lee, "friday" in its body, "invoice" in its subject) is found by each; public mail is not.
 */
export async function expectUpgradedMailFound(store: Store): Promise<void> {
	const found = async (query: string) => idsIn(await store.accountInbox.search('acct', parseSearchQuery(query)));
	expect(await found('friday')).toEqual(['private']);
	expect(await found('from:"ann lee"')).toEqual(['private']);
	expect(await found('invoice')).toEqual(['private']);
}

/** The subjects of a JSON array of records. */
export const subjectsIn = (json: string) => (JSON.parse(json) as { subject: string }[]).map((record) => record.subject);
