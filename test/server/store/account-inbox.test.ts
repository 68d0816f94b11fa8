import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rmSync } from 'node:fs';
import { AccountInbox, SCAN_LIMIT } from 'mailroom-server/dist/store/account-inbox';
import { AccountStore } from 'mailroom-server/dist/store/accounts';
import { AddressStore } from 'mailroom-server/dist/store/addresses';
import { openDatabase, type Db } from 'mailroom-server/dist/store/database';
import { DomainStore } from 'mailroom-server/dist/store/domains';
import { MessageStore } from 'mailroom-server/dist/store/messages';
import { parseSimpleMessage } from 'mailroom-server/dist/parse/simple-message';
import { tempDataDir } from '../../helpers/mailroom';

const subjects = (json: string) => (JSON.parse(json) as { subject: string }[]).map((message) => message.subject);

describe('account-wide search over a large domain', () => {
	let dataDir: string;
	let db: Db;
	let inbox: AccountInbox;
	let account: string;

	beforeAll(() => {
		dataDir = tempDataDir();
		db = openDatabase(dataDir);
		const addresses = new AddressStore(db);
		account = new AccountStore(db).create('owner').id;
		new DomainStore(db, addresses).claim('big.test', account);
		const messages = new MessageStore(db);
		const deliver = (subject: string, at: number) => {
			const raw = Buffer.from(`From: a@sender.test\r\nTo: x@big.test\r\nSubject: ${subject}\r\n\r\nhi\r\n`);
			messages.insert({
				raw,
				parsed: parseSimpleMessage(raw)!,
				recipients: [{ inbox: `x${at % 7}@big.test`, originalInbox: `x${at % 7}@big.test`, domain: 'big.test' }],
				ip: '192.0.2.1',
				via: '127.0.0.1',
				rtls: false,
				received: new Date(1_700_000_000_000 + at),
			});
		};
		// The oldest message is the only one with "zq" in it, and it lies beyond the scan window.
		db.transaction(() => {
			deliver('old zq', 0);
			for (let i = 1; i <= SCAN_LIMIT + 10; i++) deliver(`filler ${i}`, i);
		})();
		inbox = new AccountInbox(db);
	});
	afterAll(() => {
		db.close();
		rmSync(dataDir, { recursive: true, force: true });
	});

	it(`looks for a term too short for the index in the newest ${SCAN_LIMIT} messages of each domain only`, () => {
		expect(subjects(inbox.search(account, 'zq'))).toEqual([]);
		expect(subjects(inbox.filter(account, { subject: 'zq' }))).toEqual([]);
		expect(subjects(inbox.search(account, '10'))).toContain(`filler ${SCAN_LIMIT + 10}`);
	});

	it('finds a longer term in all of the mail, through the full-text index', () => {
		expect(subjects(inbox.search(account, 'old zq'))).toEqual(['old zq']);
	});
});
