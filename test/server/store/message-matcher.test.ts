import { describe, expect, it } from '@jest/globals';
import { containsIgnoringCase } from 'mailroom-server/dist/mail/filter-match';
import { PIECE_SIZE } from 'mailroom-server/dist/store/pieces';
import { composeMail } from '../../helpers/large-messages';
import { ENGINES, inMemoryMail, insert, mailTo, spooledFile, storePerBlock } from '../../helpers/stores';
import { queryValue } from '../../helpers/database';

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

describe.each(ENGINES)('MessageMatcher: the oldest message of an inbox since a time that passes a filter (%s)', (engine) => {
	const current = storePerBlock(engine);

	it('takes `since` as inclusive, and only the inbox asked about', async () => {
		const { matcher } = current();
		const at = Date.UTC(2026, 5, 1);
		const [first] = await insert(current(), mailTo(['since@x.test'], {}, new Date(at)));
		const [second] = await insert(current(), mailTo(['since@x.test'], {}, new Date(at + 10)));
		expect((await matcher.oldestMatching('since@x.test', at, {}))?._id).toBe(first._id);
		expect(await matcher.oldestMatching('since@x.test', at + 1, {})).toEqual(second);
		expect(await matcher.oldestMatching('since@x.test', at + 11, {})).toBeUndefined();
		expect(await matcher.oldestMatching('elsewhere@x.test', 0, {})).toBeUndefined();
	});

	it('matches sender (address or name), subject and text, every part given', async () => {
		const inbox = 'parts@x.test';
		await insert(current(), mailTo([inbox], { from: [{ address: 'news@shop.test', name: 'Shop' }], subject: 'Sale', text: 'no code' }));
		const [wanted] = await insert(
			current(),
			mailTo([inbox], { from: [{ address: 'robot@bank.test', name: 'Your Bank' }], subject: 'Login code', text: 'Your code is 4711' }),
		);
		const oldest = async (filter: object) => (await current().matcher.oldestMatching(inbox, 0, filter))?._id;
		expect(await oldest({ from: 'BANK' })).toBe(wanted._id);
		expect(await oldest({ from: 'your bank' })).toBe(wanted._id);
		expect(await oldest({ subject: 'code', text: '4711' })).toBe(wanted._id);
		expect(await oldest({ text: 'code' })).not.toBe(wanted._id);
		expect(await oldest({ from: 'shop', text: '4711' })).toBeUndefined();
	});

	it('folds case as JavaScript does (filter-match.ts), in any script and whatever the server locale', async () => {
		for (const [i, [text, part]] of FOLDING.entries()) {
			const inbox = `fold-${i}@x.test`;
			const [record] = await insert(current(), mailTo([inbox], { subject: text, text, from: [{ address: 'a@x.test', name: text }] }));
			const expected = containsIgnoringCase(text, part) ? record._id : undefined;
			for (const filter of [{ subject: part }, { text: part }, { from: part }]) {
				const found = (await current().matcher.oldestMatching(inbox, 0, filter))?._id;
				expect([text, part, filter, found]).toEqual([text, part, filter, expected]);
			}
		}
	});

	it('looks past many messages that do not match, a page at a time', async () => {
		const { matcher } = current();
		const inbox = 'many@x.test';
		const at = Date.UTC(2026, 6, 1);
		await current().transaction(async (parts) => {
			for (let i = 0; i < 130; i++) await parts.messages.insert(mailTo([inbox], { subject: `filler ${i}` }, new Date(at)));
		});
		const [wanted] = await insert(current(), mailTo([inbox], { subject: 'the one' }, new Date(at)));
		expect((await matcher.oldestMatching(inbox, at, { subject: 'THE ONE' }))?._id).toBe(wanted._id);
		expect(await matcher.oldestMatching(inbox, at, { subject: 'none such' })).toBeUndefined();
	});

	it('finds text in a body of over 1 MB stored in pieces, across the cut between two pieces', async () => {
		const { matcher } = current();
		const inbox = 'pieces@x.test';
		// ASCII, so the body's characters are its bytes: "NEEDLE" starts 3 bytes before the first cut.
		const body = `${'x'.repeat(PIECE_SIZE - 3)}NEEDLE in the haystack\n${'y'.repeat(PIECE_SIZE)}`;
		const [record] = await insert(current(), mailTo([inbox], { text: spooledFile(current(), body) }));
		const firstPiece = await queryValue<Buffer>(
			current(),
			`SELECT p.data FROM content_body_pieces p JOIN messages m ON m.content_id = p.content_id WHERE m.id = ? AND p.kind = 'text' AND p.seq = 0`,
			[record._id],
		);
		expect(firstPiece.subarray(-3).toString()).toBe('NEE');
		expect(await matcher.oldestMatching(inbox, 0, { text: 'needle IN the' })).toEqual(record);
		expect(await matcher.oldestMatching(inbox, 0, { text: 'needle in the hay stack' })).toBeUndefined();
	});

	it('matches the text of an HTML-only message as made from its HTML', async () => {
		const inbox = 'html-only@x.test';
		const raw = await composeMail({ from: 'a@x.test', to: inbox, html: '<p>Your <b>code</b> is <i>4711</i></p>' });
		const [record] = await insert(current(), await inMemoryMail(raw, inbox));
		expect(await current().matcher.oldestMatching(inbox, 0, { text: 'code is 4711' })).toEqual(record);
	});
});
