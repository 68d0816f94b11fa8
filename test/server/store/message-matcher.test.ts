import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { MessageMatcher } from 'mailroom-server/dist/store/store';
import { queryValue } from '../../helpers/database';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { sendMail } from '../../helpers/messages';

/** Where a body stored in pieces is cut (see ContentPieces). */
const PIECE = 1024 * 1024;

describe('MessageMatcher: the oldest message of an inbox since a time that passes a filter', () => {
	let server: TestMailroom;
	let matcher: MessageMatcher;
	beforeAll(async () => {
		server = await startTestMailroom();
		matcher = server.store.matcher;
	});
	afterAll(() => server.stop());

	const record = async (inbox: string, id: string) => (await server.api<MessageRecord>(`/api/addresses/${inbox}/messages/${id}`)).body;

	it('finds text in a body of over 1 MB stored in pieces, across the cut between two pieces', async () => {
		const inbox = 'pieces@example.test';
		// ASCII lines, so the body's characters are its bytes: "NEEDLE" starts 3 bytes before the first cut.
		const lines = ('x'.repeat(99) + '\n').repeat(Math.floor(PIECE / 100));
		const text = `${lines}${'y'.repeat(PIECE - lines.length - 3)}NEEDLE in the haystack\n${lines}`;
		const [id] = await sendMail(server, { to: inbox, text });
		const firstPiece = await queryValue<Buffer>(
			server,
			`SELECT p.data FROM content_body_pieces p JOIN messages m ON m.content_id = p.content_id WHERE m.id = ? AND p.kind = 'text' AND p.seq = 0`,
			[id],
		);
		expect(firstPiece.subarray(-3).toString()).toBe('NEE');
		expect(await matcher.oldestMatching(inbox, 0, { text: 'needle IN the' })).toEqual(await record(inbox, id));
		expect(await matcher.oldestMatching(inbox, 0, { text: 'needle in the hay stack' })).toBeUndefined();
	});

	it('matches the text of an HTML-only message as made from its HTML', async () => {
		const inbox = 'html-only@example.test';
		const [id] = await sendMail(server, { to: inbox, text: undefined, html: '<p>Your <b>code</b> is <i>4711</i></p>' });
		expect(await matcher.oldestMatching(inbox, 0, { text: 'code is 4711' })).toEqual(await record(inbox, id));
	});

	it('takes `since` as inclusive, and only the inbox asked about', async () => {
		const [id] = await sendMail(server, { to: 'since-inclusive@example.test' });
		const received = Date.parse((await record('since-inclusive@example.test', id)).received);
		expect((await matcher.oldestMatching('since-inclusive@example.test', received, {}))?._id).toBe(id);
		expect(await matcher.oldestMatching('since-inclusive@example.test', received + 1, {})).toBeUndefined();
		expect(await matcher.oldestMatching('elsewhere@example.test', 0, {})).toBeUndefined();
	});
});
