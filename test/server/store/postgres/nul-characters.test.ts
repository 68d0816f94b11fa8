import { describe, expect, it } from '@jest/globals';
import { insert, mailTo, storePerTest } from '../../../helpers/stores';

// The parser replaces U+0000 in what it reads from mail, and the API refuses it (test/server/store/messages.test.ts and
// test/server/http/nul-characters.test.ts hold both engines to it); this is PostgreSQL's last guard for whatever else comes.
describe('PostgreSQL store: text, which cannot hold U+0000', () => {
	const current = storePerTest('postgres');

	it('stores a NUL in a text column as U+FFFD, and keeps that of a body, stored as bytes', async () => {
		const [record] = await insert(current(), mailTo(['n@x.test'], { subject: 'a\u0000b', text: 'body\u0000nul', html: null }));
		expect(record.subject).toBe('a\uFFFDb');
		expect((await current().messages.get('n@x.test', record._id))?.subject).toBe('a\uFFFDb');
		expect(await (await current().messages.content('n@x.test', record._id))!.text()).toBe('body\u0000nul');
	});
});
