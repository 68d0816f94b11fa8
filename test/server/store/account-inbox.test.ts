import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SCAN_LIMIT } from 'mailroom-server/dist/store/store';
import { SEARCH_BODY_CHARS } from 'mailroom-server/dist/store/search-plan';
import { parseSearchQuery } from 'mailroom-server/dist/mail/search-query';
import { parseSimpleMessage } from 'mailroom-server/dist/parse/simple-message';
import {
	ENGINES,
	attachment,
	insert,
	mailTo,
	openTestStore,
	spooledFile,
	storePerBlock,
	subjectsIn,
	type TestStore,
} from '../../helpers/stores';

describe.each(ENGINES)('account-wide search with the query language (%s)', (engine) => {
	const store = storePerBlock(engine);
	let account: string;
	const day = (n: number) => new Date(Date.UTC(2026, 10, n, 12));
	const ids: Record<string, string> = {};
	const search = async (query: string) => subjectsIn(await store().accountInbox.search(account, parseSearchQuery(query)));

	beforeAll(async () => {
		const { accounts, domains, addresses, messageState } = store();
		account = (await accounts.create('owner')).id;
		await domains.claim('team.test', account);
		await addresses.reserve('me@personal.test', account);
		const deliver = async (name: string, inbox: string, mail: Parameters<typeof mailTo>[1], received: Date) => {
			ids[name] = (await insert(store(), mailTo([inbox], mail, received)))[0]._id;
		};
		await deliver(
			'invoice',
			'me@personal.test',
			{
				subject: 'Invoice 42',
				from: [{ address: 'billing@vendor.test', name: 'Billing Dept' }],
				to: [{ address: 'me@personal.test', name: 'Me Myself' }],
				text: 'Please pay by Friday.\nÜberweisung bitte.',
				attachments: [attachment('c0ffee', 'pdf bytes')],
			},
			day(1),
		);
		await deliver(
			'digest',
			'sales@team.test',
			{
				subject: 'Weekly digest',
				from: [{ address: 'noreply@news.test', name: 'News Letter' }],
				text: 'All about invoices this week.',
			},
			day(2),
		);
		await deliver(
			'lunch',
			'desk@team.test',
			{
				subject: 'Lunch?',
				from: [{ address: 'ann@mail.test', name: 'Ann Lee' }],
				to: [{ address: 'desk@team.test', name: 'Front Desk' }],
				text: 'See you at noon, 50% off',
			},
			day(3),
		);
		// Public mail is never searched.
		await deliver('public', 'anyone@public.test', { subject: 'Invoice in public', text: 'invoice friday noon' }, day(4));
		await messageState.setRead('desk@team.test', ids.lunch, true);
		await messageState.setStar('sales@team.test', ids.digest, account, true);
		await messageState.addLabel('me@personal.test', ids.invoice, 'Paid');
	});

	it('finds a word in the senders, recipients, inbox, subject or body, case-insensitively in any script', async () => {
		expect(await search('invoice')).toEqual(['Weekly digest', 'Invoice 42']);
		expect(await search('FRIDAY')).toEqual(['Invoice 42']);
		expect(await search('überweisung')).toEqual(['Invoice 42']);
		expect(await search('ÜBERWEISUNG')).toEqual(['Invoice 42']);
		expect(await search('"Ann Lee"')).toEqual(['Lunch?']);
		expect(await search('"front desk"')).toEqual(['Lunch?']);
		expect(await search('sales@team')).toEqual(['Weekly digest']);
		expect(await search('vendor.test')).toEqual(['Invoice 42']);
		// Terms too short for the index are looked for in the same text, message by message.
		expect(await search('42')).toEqual(['Invoice 42']);
		expect(await search('ü')).toEqual(['Invoice 42']);
		expect(await search('%')).toEqual(['Lunch?']);
		expect(await search('nothing like it')).toEqual([]);
	});

	it('matches a quoted phrase as written, spaces and all', async () => {
		expect(await search('"pay by friday"')).toEqual(['Invoice 42']);
		expect(await search('"friday pay"')).toEqual([]);
		expect(await search('"50% off"')).toEqual(['Lunch?']);
	});

	it('narrows a word to the senders (from:), the recipients and inbox (to:) or the subject (subject:)', async () => {
		expect(await search('from:billing')).toEqual(['Invoice 42']);
		expect(await search('from:"billing dept"')).toEqual(['Invoice 42']);
		expect(await search('from:noon')).toEqual([]);
		expect(await search('to:sales')).toEqual(['Weekly digest']);
		expect(await search('to:myself')).toEqual(['Invoice 42']);
		expect(await search('to:billing')).toEqual([]);
		expect(await search('subject:digest')).toEqual(['Weekly digest']);
		expect(await search('subject:invoice')).toEqual(['Invoice 42']);
		expect(await search('subject:?')).toEqual(['Lunch?']);
		expect(await search('subject:noon')).toEqual([]);
	});

	it('tests state: has:attachment, is:read, is:unread, is:starred, label:', async () => {
		expect(await search('has:attachment')).toEqual(['Invoice 42']);
		expect(await search('is:read')).toEqual(['Lunch?']);
		expect(await search('is:unread')).toEqual(['Weekly digest', 'Invoice 42']);
		expect(await search('is:starred')).toEqual(['Weekly digest']);
		expect(await search('label:Paid')).toEqual(['Invoice 42']);
		expect(await search('label:paid')).toEqual([]);
		expect(await search('is:unread invoice has:attachment')).toEqual(['Invoice 42']);
	});

	it('keeps mail received at or after after: and before before:', async () => {
		expect(await search('after:2026-11-02')).toEqual(['Lunch?', 'Weekly digest']);
		expect(await search('before:2026-11-02')).toEqual(['Invoice 42']);
		expect(await search('after:2026-11-02T12:00:00Z before:2026-11-03')).toEqual(['Weekly digest']);
		expect(await search('after:2026-11-02T12:00:00.001Z before:2026-11-03')).toEqual([]);
		expect(await search('after:2026-11-02 invoice')).toEqual(['Weekly digest']);
		expect(await search('after:2026-11-03 before:2026-11-02')).toEqual([]);
	});

	it('excludes what a condition preceded by - matches', async () => {
		expect(await search('invoice -from:noreply')).toEqual(['Invoice 42']);
		expect(await search('invoice -invoices')).toEqual(['Invoice 42']);
		expect(await search('-invoice')).toEqual(['Lunch?']);
		expect(await search('-42')).toEqual(['Lunch?', 'Weekly digest']);
		expect(await search('-"pay by friday" -lunch')).toEqual(['Weekly digest']);
		expect(await search('-is:read')).toEqual(['Weekly digest', 'Invoice 42']);
		expect(await search('-is:unread')).toEqual(['Lunch?']);
		expect(await search('-is:starred -has:attachment')).toEqual(['Lunch?']);
		expect(await search('-label:Paid')).toEqual(['Lunch?', 'Weekly digest']);
		expect(await search('-after:2026-11-02')).toEqual(['Invoice 42']);
		expect(await search('-before:2026-11-03')).toEqual(['Lunch?']);
	});

	it('finds words in the first SEARCH_BODY_CHARS characters of a large body stored in pieces', async () => {
		const text = `needle ${'x'.repeat(SEARCH_BODY_CHARS)} haystackend ${'y'.repeat(1024 * 1024)}`;
		await insert(store(), mailTo(['big@team.test'], { subject: 'Large body', text: spooledFile(store(), text) }, day(5)));
		expect(await search('needle')).toEqual(['Large body']);
		expect(await search('haystackend')).toEqual([]);
	});
});

// 16,000 distinct four-letter tokens in one run: more word suffixes than PostgreSQL's word index takes for one body.
const run = Array.from({ length: 16_000 }, (_, i) => i.toString(36).padStart(4, 'q')).join('');

describe.each(ENGINES)('account-wide search of words long, short and many (%s)', (engine) => {
	const store = storePerBlock(engine);
	let account: string;
	const search = async (query: string) => subjectsIn(await store().accountInbox.search(account, parseSearchQuery(query)));

	beforeAll(async () => {
		const { accounts, domains } = store();
		account = (await accounts.create('owner')).id;
		await domains.claim('words.test', account);
		const deliver = (subject: string, text: string) => insert(store(), mailTo(['any@words.test'], { subject, text }));
		await deliver('Long word', 'Mary Poppins sings supercalifragilisticexpialidocious.');
		await deliver('Versions', 'Released as 1.2.3 (a.b) today');
		await deliver('One long run', `Starts plainly: ${run} and ends in zanzibar`);
	});

	it('finds any part of a word longer than the word index keeps', async () => {
		expect(await search('supercalifragilisticexpialidocious')).toEqual(['Long word']);
		expect(await search('califragilisticexpiali')).toEqual(['Long word']);
		expect(await search('docious')).toEqual(['Long word']);
		expect(await search('supercalifragilisticexpialidociousness')).toEqual([]);
		expect(await search('"sings supercalifragilisticexpialidocious."')).toEqual(['Long word']);
	});

	it('finds terms with no word of three characters', async () => {
		expect(await search('1.2.3')).toEqual(['Versions']);
		expect(await search('(a.b)')).toEqual(['Versions']);
		expect(await search('1.2.4')).toEqual([]);
	});

	it('finds words in a body with more distinct text than the word index takes', async () => {
		expect(await search('plainly')).toEqual(['One long run']);
		expect(await search('zanzibar')).toEqual(['One long run']);
		expect(await search(run.slice(40_000, 40_010))).toEqual(['One long run']);
		expect(await search(`${run.slice(40_000, 40_010)}é`)).toEqual([]);
	});
});

describe.each(ENGINES)('account-wide search over a large domain (%s)', (engine) => {
	let store: TestStore;
	let account: string;
	const search = async (query: string) => subjectsIn(await store.accountInbox.search(account, parseSearchQuery(query)));

	// Ten thousand messages stored one by one: a minute or more on PostgreSQL on a busy machine.
	beforeAll(async () => {
		store = await openTestStore(engine);
		account = (await store.accounts.create('owner')).id;
		await store.domains.claim('big.test', account);
		const deliver = (subject: string, at: number, body = 'hi') => {
			const raw = Buffer.from(`From: a@sender.test\r\nTo: x@big.test\r\nSubject: ${subject}\r\n\r\n${body}\r\n`);
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
		// Every 10th message says "tenth", every 200th "twohundredth": terms found often, and seldom.
		await store.transaction(async ({ messages }) => {
			await messages.insert(mailTo(['x0@big.test'], { subject: 'filler run', text: run }, new Date(1_700_000_000_000 - 1)));
			await messages.insert(deliver('old zq', 0, 'the oldest message mentions a quagmire'));
			for (let i = 1; i <= SCAN_LIMIT + 10; i++) {
				const body = [i % 10 === 0 ? 'the tenth' : '', i % 200 === 0 ? 'the twohundredth' : ''].join(' ');
				await messages.insert(deliver(`filler ${i}`, i, body || 'hi'));
			}
		});
	}, 180_000);
	afterAll(() => store.close());

	it(`looks for a term too short for the index in the newest ${SCAN_LIMIT} messages of each domain only`, async () => {
		expect(await search('zq')).toEqual([]);
		expect(await search('-filler')).toEqual([]);
		expect(subjectsIn(await store.accountInbox.filter(account, { subject: 'zq' }))).toEqual([]);
		expect(await search('10')).toContain(`filler ${SCAN_LIMIT + 10}`);
	});

	it('finds a longer term in all of the mail, through the full-text index', async () => {
		expect(await search('old zq')).toEqual(['old zq']);
		expect(await search('"old zq"')).toEqual(['old zq']);
		expect(await search('quagmire')).toEqual(['old zq']);
		expect(await search('"a quagmire"')).toEqual(['old zq']);
		// A body with more distinct text than the word index takes, beyond the entries a search walks.
		expect(await search(run.slice(40_000, 40_010))).toEqual(['filler run']);
	});

	it('gives the newest matches, whether a term is frequent or rare', async () => {
		const newest = (every: number, count: number) =>
			Array.from({ length: count }, (_, k) => `filler ${(Math.floor((SCAN_LIMIT + 10) / every) - k) * every}`);
		expect(await search('tenth')).toEqual(newest(10, 100));
		expect(await search('twohundredth')).toEqual(newest(200, Math.floor((SCAN_LIMIT + 10) / 200)));
		expect(await search('twohundredth tenth')).toEqual(newest(200, Math.floor((SCAN_LIMIT + 10) / 200)));
		expect(await search('"the twohundredth"')).toEqual(newest(200, Math.floor((SCAN_LIMIT + 10) / 200)));
	});

	it('looks in the dates asked for when the index cannot help: the scan window starts at before:', async () => {
		expect(await search(`-filler before:${new Date(1_700_000_000_001).toISOString()}`)).toEqual(['old zq']);
	});
});
