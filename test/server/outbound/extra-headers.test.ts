import { describe, expect, it } from '@jest/globals';
import { expectError } from '../../helpers/messages';
import { credits, postOutgoing, receivedCopy, sendingSetup } from '../../helpers/outgoing';

/** Every header Mailroom sets itself, in the case the API documents (docs and OpenAPI list the same). */
const SET_BY_MAILROOM = (
	'From To Cc Bcc Reply-To Subject Date Message-ID In-Reply-To References MIME-Version Content-Type Content-Transfer-Encoding ' +
	'Sender Return-Path DKIM-Signature'
).split(' ');

describe('the extra headers of a send', () => {
	const setup = sendingSetup();

	const mail = { from: 'alice@local.test', to: ['headers@local.test', 'headers@remote.test'], subject: 'headers', text: 't' };

	it('writes them into every copy, local and relayed', async () => {
		const { server, relay, alice } = setup;
		const relayedBefore = relay.received.length;
		const headers = { 'X-Campaign': 'spring-2026', 'List-Unsubscribe': '<mailto:unsubscribe@local.test>', 'X-Note': 'Grüße' };
		const res = await postOutgoing(server, alice.key, { ...mail, headers });
		expect(res.status).toBe(200);
		const [relayed] = (await relay.waitFor(relayedBefore + 1)).slice(relayedBefore);
		for (const { parsed } of [relayed, await receivedCopy(server, 'headers@local.test')]) {
			const lines = parsed.headerLines.filter((line) => ['x-campaign', 'list-unsubscribe', 'x-note'].includes(line.key));
			expect(lines.map((line) => line.line)).toEqual([
				'X-Campaign: spring-2026',
				'List-Unsubscribe: <mailto:unsubscribe@local.test>',
				// Non-ASCII as an RFC 2047 encoded word, which clients decode.
				'X-Note: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?=',
			]);
		}
	});

	it('refuses with 400 a header Mailroom sets itself, in any case, charging nothing', async () => {
		const { server, alice } = setup;
		const before = await credits(server, alice.key);
		for (const name of [...SET_BY_MAILROOM, 'bcc', 'dkim-signature', 'CONTENT-TYPE']) {
			const res = await postOutgoing(server, alice.key, { ...mail, headers: { 'X-Fine': 'yes', [name]: 'x@remote.test' } });
			expectError(res, 400, new RegExp(`^headers may not set ${name}: Mailroom sets it itself`), `headers.${name}`);
		}
		expect(await credits(server, alice.key)).toBe(before);
	});

	it('refuses with 400 a name that is no RFC 5322 field name, a line break in a name or value, and too many or too long', async () => {
		const { server, alice } = setup;
		const before = await credits(server, alice.key);
		for (const name of ['X Spaced', 'X:Colon', 'X-Ümlaut', 'X-Injected\r\nBcc', 'X-Tab\t', '', 'X'.repeat(77)]) {
			const res = await postOutgoing(server, alice.key, { ...mail, headers: { [name]: 'v' } });
			expectError(res, 400, /^headers has ".*", which is not a header name \(RFC 5322/, 'headers');
		}
		for (const value of ['one\r\nBcc: evil@remote.test', 'two\nlines', 'cr\r']) {
			const res = await postOutgoing(server, alice.key, { ...mail, headers: { 'X-Value': value } });
			expectError(res, 400, /^headers\.X-Value contains a line break \(CR or LF\)/, 'headers.X-Value');
		}
		const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v']));
		expectError(await postOutgoing(server, alice.key, { ...mail, headers: many }), 400, /^headers must have at most 20 fields$/, 'headers');
		expectError(
			await postOutgoing(server, alice.key, { ...mail, headers: { 'X-Long': 'v'.repeat(999) } }),
			400,
			/^headers\.X-Long must be at most 998 characters long$/,
			'headers.X-Long',
		);
		expect(await credits(server, alice.key)).toBe(before);
	});
});
