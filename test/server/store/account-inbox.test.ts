import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SCAN_LIMIT } from 'mailroom-server/dist/store/store';
import { parseSimpleMessage } from 'mailroom-server/dist/parse/simple-message';
import { ENGINES, openTestStore, type TestStore } from '../../helpers/stores';

const subjects = (json: string) => (JSON.parse(json) as { subject: string }[]).map((message) => message.subject);

describe.each(ENGINES)('account-wide search over a large domain (%s)', (engine) => {
	let store: TestStore;
	let account: string;

	beforeAll(async () => {
		store = await openTestStore(engine);
		account = (await store.accounts.create('owner')).id;
		await store.domains.claim('big.test', account);
		const deliver = (subject: string, at: number) => {
			const raw = Buffer.from(`From: a@sender.test\r\nTo: x@big.test\r\nSubject: ${subject}\r\n\r\nhi\r\n`);
			return {
				raw,
				parsed: parseSimpleMessage(raw)!,
				recipients: [{ inbox: `x${at % 7}@big.test`, originalInbox: `x${at % 7}@big.test`, domain: 'big.test' }],
				ip: '192.0.2.1',
				via: '127.0.0.1',
				rtls: false,
				received: new Date(1_700_000_000_000 + at),
			};
		};
		// The oldest message is the only one with "zq" in it, and it lies beyond the scan window.
		await store.transaction(async ({ messages }) => {
			await messages.insert(deliver('old zq', 0));
			for (let i = 1; i <= SCAN_LIMIT + 10; i++) await messages.insert(deliver(`filler ${i}`, i));
		});
	}, 60_000);
	afterAll(() => store.close());

	it(`looks for a term too short for the index in the newest ${SCAN_LIMIT} messages of each domain only`, async () => {
		const inbox = store.accountInbox;
		expect(subjects(await inbox.search(account, 'zq'))).toEqual([]);
		expect(subjects(await inbox.filter(account, { subject: 'zq' }))).toEqual([]);
		expect(subjects(await inbox.search(account, '10'))).toContain(`filler ${SCAN_LIMIT + 10}`);
	});

	it('finds a longer term in all of the mail, through the full-text index', async () => {
		expect(subjects(await store.accountInbox.search(account, 'old zq'))).toEqual(['old zq']);
	});
});
