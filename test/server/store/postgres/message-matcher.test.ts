import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { containsIgnoringCase } from 'mailroom-server/dist/mail/filter-match';
import { PIECE_SIZE } from 'mailroom-server/dist/store/pieces';
import type { Store } from 'mailroom-server/dist/store/store';
import { startPostgres, type TestPostgres } from '../../../helpers/postgres';
import { freshStore, mailTo } from './fixtures';

/** Text and a part of a filter, in scripts whose case folding PostgreSQL's lower() does differently per locale, or not at all. */
const FOLDING: [text: string, part: string][] = [
	['ÄRGER im Büro', 'ärger'],
	['ärger im büro', 'BÜRO'],
	['ΣΟΦΙΑ', 'σοφια'],
	['Привет, МИР', 'мир'],
	['İstanbul', 'i̇st'],
	['İstanbul', 'ist'],
	['Kelvin: 300 K', 'k'],
	['STRASSE', 'straße'],
	['ǅemal', 'ǆ'],
	['ÉTÉ', 'été'],
];

describe('PostgreSQL store: the oldest message of an inbox since a time that passes a filter', () => {
	let postgres: TestPostgres;
	let store: Store;
	let spool: string;
	beforeAll(async () => {
		postgres = await startPostgres();
		({ store } = await freshStore(postgres));
		spool = mkdtempSync(join(tmpdir(), 'mailroom-pg-matcher-'));
	});
	afterAll(async () => {
		await store.close();
		await postgres.stop();
		rmSync(spool, { recursive: true, force: true });
	});

	it('takes `since` as inclusive, and only the inbox asked about', async () => {
		const at = Date.UTC(2026, 5, 1);
		const [first] = await store.messages.insert(mailTo(['since@x.test'], {}, new Date(at)));
		const [second] = await store.messages.insert(mailTo(['since@x.test'], {}, new Date(at + 10)));
		expect((await store.matcher.oldestMatching('since@x.test', at, {}))?._id).toBe(first._id);
		expect(await store.matcher.oldestMatching('since@x.test', at + 1, {})).toEqual(second);
		expect(await store.matcher.oldestMatching('since@x.test', at + 11, {})).toBeUndefined();
		expect(await store.matcher.oldestMatching('elsewhere@x.test', 0, {})).toBeUndefined();
	});

	it('matches sender (address or name), subject and text, every part given', async () => {
		const inbox = 'parts@x.test';
		await store.messages.insert(mailTo([inbox], { from: [{ address: 'news@shop.test', name: 'Shop' }], subject: 'Sale', text: 'no code' }));
		const [wanted] = await store.messages.insert(
			mailTo([inbox], { from: [{ address: 'robot@bank.test', name: 'Your Bank' }], subject: 'Login code', text: 'Your code is 4711' }),
		);
		const oldest = async (filter: object) => (await store.matcher.oldestMatching(inbox, 0, filter))?._id;
		expect(await oldest({ from: 'BANK' })).toBe(wanted._id);
		expect(await oldest({ from: 'your bank' })).toBe(wanted._id);
		expect(await oldest({ subject: 'code', text: '4711' })).toBe(wanted._id);
		expect(await oldest({ text: 'code' })).not.toBe(wanted._id);
		expect(await oldest({ from: 'shop', text: '4711' })).toBeUndefined();
	});

	it('folds case as JavaScript does (filter-match.ts), in any script and whatever the server locale', async () => {
		for (const [i, [text, part]] of FOLDING.entries()) {
			const inbox = `fold-${i}@x.test`;
			const [record] = await store.messages.insert(mailTo([inbox], { subject: text, text, from: [{ address: 'a@x.test', name: text }] }));
			const expected = containsIgnoringCase(text, part) ? record._id : undefined;
			for (const filter of [{ subject: part }, { text: part }, { from: part }]) {
				expect([text, part, filter, (await store.matcher.oldestMatching(inbox, 0, filter))?._id]).toEqual([text, part, filter, expected]);
			}
		}
	});

	it('looks past many messages that do not match, a page at a time', async () => {
		const inbox = 'many@x.test';
		const at = Date.UTC(2026, 6, 1);
		await store.transaction(async (parts) => {
			for (let i = 0; i < 130; i++) await parts.messages.insert(mailTo([inbox], { subject: `filler ${i}` }, new Date(at)));
		});
		const [wanted] = await store.messages.insert(mailTo([inbox], { subject: 'the one' }, new Date(at)));
		expect((await store.matcher.oldestMatching(inbox, at, { subject: 'THE ONE' }))?._id).toBe(wanted._id);
		expect(await store.matcher.oldestMatching(inbox, at, { subject: 'none such' })).toBeUndefined();
	});

	it('finds text in a body of over 1 MB stored in pieces, across the cut between two pieces', async () => {
		const inbox = 'pieces@x.test';
		// ASCII, so the body's characters are its bytes: "NEEDLE" starts 3 bytes before the first cut.
		const body = `${'x'.repeat(PIECE_SIZE - 3)}NEEDLE in the haystack\n${'y'.repeat(PIECE_SIZE)}`;
		const file = join(spool, 'body');
		writeFileSync(file, body);
		const [record] = await store.transaction((parts) =>
			parts.messages.insert(mailTo([inbox], { text: { spoolPath: file, byteLength: body.length } })),
		);
		expect(await store.matcher.oldestMatching(inbox, 0, { text: 'needle IN the' })).toEqual(record);
		expect(await store.matcher.oldestMatching(inbox, 0, { text: 'needle in the hay stack' })).toBeUndefined();
	});
});
