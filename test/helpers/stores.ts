import { afterAll, afterEach, beforeAll, beforeEach } from '@jest/globals';
import { rmSync } from 'node:fs';
import type { ParsedIncomingMail } from 'mailroom-server/dist/mail/incoming-mail';
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
	const config = { dataDir: tempDataDir(), durability: 'normal' as const, databaseUrl: await postgres?.newDatabase() };
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
