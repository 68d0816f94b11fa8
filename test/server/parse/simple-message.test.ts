import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { parseMessage } from 'mailroom-server/dist/parse/parse-message';
import { INLINE_PARSE_MAX_BYTES, parseSimpleMessage } from 'mailroom-server/dist/parse/simple-message';

/**
 * The inline parser must make exactly the record mailparser (on a parser thread) makes, or
 * leave the message to mailparser. Checked differentially over generated messages.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

const word = fc.oneof(
	fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
	fc.constantFrom(
		'https://example.test/a?b=1',
		'http://x.test',
		'ftp://files.test/f',
		'free money',
		'URGENT',
		'café',
		'日本語',
		'=',
		'=3D',
		'"',
	),
);
const phrase = fc.array(word, { minLength: 1, maxLength: 8 }).map((words) => words.join(' ').replace(/[\r\n]/g, ' '));

/** RFC 2047 encoded words, as mail clients write non-ASCII names and subjects. */
const encodedWord = (text: string, encoding: 'B' | 'Q') =>
	encoding === 'B'
		? `=?utf-8?B?${Buffer.from(text).toString('base64')}?=`
		: `=?utf-8?Q?${[...Buffer.from(text)].map((byte) => (byte > 32 && byte < 127 && byte !== 61 && byte !== 63 && byte !== 95 ? String.fromCharCode(byte) : `=${byte.toString(16).toUpperCase().padStart(2, '0')}`)).join('')}?=`;
const headerText = fc.oneof(
	phrase.map((text) => text.replace(/[^\x20-\x7e]/g, '?')),
	fc.tuple(phrase, fc.constantFrom<'B' | 'Q'>('B', 'Q')).map(([text, encoding]) => encodedWord(text, encoding)),
);
const mailbox = fc
	.tuple(
		fc.option(
			headerText.map((name) => name.replace(/["\\<>,;:@()]/g, '')),
			{ nil: undefined },
		),
		fc.emailAddress(),
	)
	.map(([name, address]) => (name?.trim() ? `"${name.trim()}" <${address}>` : address));
const mailboxes = fc.array(mailbox, { minLength: 1, maxLength: 3 }).map((list) => list.join(', '));
const date = fc.date({ min: new Date('1990-01-01'), max: new Date('2090-01-01'), noInvalidDate: true }).map((d) => d.toUTCString());

const encodings = ['7bit', '8bit', 'quoted-printable', 'base64', undefined] as const;
function encodeBody(body: string, encoding: (typeof encodings)[number]): string {
	const bytes = Buffer.from(body);
	if (encoding === 'base64') return (bytes.toString('base64').match(/.{1,76}/g) ?? []).join('\r\n');
	if (encoding === 'quoted-printable') {
		return body
			.split('\r\n')
			.map((line) =>
				[...Buffer.from(line)]
					.map((byte) =>
						byte >= 33 && byte <= 126 && byte !== 61 ? String.fromCharCode(byte) : `=${byte.toString(16).toUpperCase().padStart(2, '0')}`,
					)
					.join(''),
			)
			.join('\r\n');
	}
	return body;
}

const addressHeaderBytes = (raw: Buffer) =>
	raw
		.toString('latin1')
		.split('\r\n\r\n')[0]
		.split('\r\n')
		.filter((line) => /^(from|to|cc|bcc):/i.test(line))
		.reduce((sum, line) => sum + line.length, 0);

/** A single-part text/plain message with the headers mail clients write. */
const simpleMessage = fc
	.record({
		from: mailbox,
		to: mailboxes,
		cc: fc.option(mailboxes, { nil: undefined }),
		bcc: fc.option(mailboxes, { nil: undefined }),
		subject: fc.option(headerText, { nil: undefined }),
		date: fc.option(date, { nil: undefined }),
		messageId: fc.option(
			fc.emailAddress().map((id) => `<${id}>`),
			{ nil: undefined },
		),
		priority: fc.option(
			fc.constantFrom('X-Priority: 1 (Highest)', 'X-Priority: 5', 'Importance: low', 'Importance: high', 'X-MSMail-Priority: High'),
			{ nil: undefined },
		),
		contentType: fc.constantFrom(
			undefined,
			'text/plain',
			'text/plain; charset=utf-8',
			'text/plain; charset="us-ascii"',
			'TEXT/PLAIN; charset=UTF-8',
		),
		encoding: fc.constantFrom(...encodings),
		body: fc.array(phrase, { maxLength: 30 }).map((lines) => lines.join('\r\n')),
	})
	.map((m) => {
		const headers = [
			`From: ${m.from}`,
			`To: ${m.to}`,
			m.cc && `Cc: ${m.cc}`,
			m.bcc && `Bcc: ${m.bcc}`,
			m.subject !== undefined && `Subject: ${m.subject}`,
			m.date && `Date: ${m.date}`,
			m.messageId && `Message-ID: ${m.messageId}`,
			m.priority,
			'MIME-Version: 1.0',
			m.contentType && `Content-Type: ${m.contentType}`,
			m.encoding && `Content-Transfer-Encoding: ${m.encoding}`,
		].filter(Boolean);
		return Buffer.from(`${headers.join('\r\n')}\r\n\r\n${encodeBody(m.body, m.encoding)}\r\n`);
	})
	// Within what is decoded inline: the size, and at most 512 bytes of address headers.
	.filter((raw) => raw.length <= INLINE_PARSE_MAX_BYTES && addressHeaderBytes(raw) <= 512);

/** Anything at all in a header block: odd headers, folding, stray bytes, other content types. */
const anyHeader = fc.tuple(
	fc.constantFrom(
		'From',
		'To',
		'Cc',
		'Subject',
		'Date',
		'Message-ID',
		'Content-Type',
		'Content-Transfer-Encoding',
		'Content-Disposition',
		'X-Priority',
		'X-Odd',
	),
	fc.oneof(
		fc.string({ unit: 'binary', maxLength: 40 }),
		fc.constantFrom(
			'text/plain; format=flowed',
			'text/html',
			'multipart/mixed; boundary=b',
			'text/plain; charset=iso-8859-1',
			'attachment; filename=a.txt',
			'base64',
			'=?x-unknown?Q?a?=',
			'\r\n folded',
			'Thu, 31 Feb 2099 25:61:61',
		),
	),
);
const anyMessage = fc
	.tuple(fc.array(anyHeader, { maxLength: 8 }), fc.string({ unit: 'binary', maxLength: 300 }))
	.map(([headers, body]) => Buffer.from(`${headers.map(([name, value]) => `${name}: ${value}`).join('\r\n')}\r\n\r\n${body}`, 'latin1'));

describe('inline parsing of simple messages', () => {
	it(`parses single-part text messages exactly as mailparser does (${RUNS} cases)`, async () => {
		await fc.assert(
			fc.asyncProperty(simpleMessage, async (raw) => {
				const inline = parseSimpleMessage(raw);
				expect(inline).toBeDefined();
				expect(inline).toEqual(await parseMessage(raw));
			}),
			{ numRuns: RUNS },
		);
	}, 120_000);

	it(`never disagrees with mailparser on arbitrary headers and bodies (${RUNS} cases)`, async () => {
		let inlined = 0;
		await fc.assert(
			fc.asyncProperty(anyMessage, async (raw) => {
				const inline = parseSimpleMessage(raw);
				if (!inline) return;
				inlined++;
				const threaded = await parseMessage(raw);
				// mailparser dates an unreadable Date header "now": compare those loosely.
				if (inline.date !== threaded.date) expect(Math.abs(Date.parse(inline.date!) - Date.parse(threaded.date!))).toBeLessThan(5000);
				expect({ ...inline, date: null }).toEqual({ ...threaded, date: null });
			}),
			{ numRuns: RUNS },
		);
		expect(inlined).toBeGreaterThan(0);
	}, 120_000);

	it(`decodes quoted-printable and base64 bodies, broken ones too, exactly as mailparser does (${RUNS} cases)`, async () => {
		const piece = fc.oneof(
			fc.constantFrom('=', '=\r\n', '=3D', '=ZZ', '=E9', '=C3=A9', ' \r\n', '\t', '\r\n', '=\n', '==', 'AAAA', 'QQ==', '\r\n\r\n'),
			fc.string({ unit: 'binary-ascii', maxLength: 10 }),
		);
		let inlined = 0;
		await fc.assert(
			fc.asyncProperty(
				fc.array(piece, { maxLength: 30 }),
				fc.constantFrom('quoted-printable', 'base64', 'Quoted-Printable'),
				async (pieces, encoding) => {
					const raw = Buffer.from(
						`From: a@b.test\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: ${encoding}\r\n\r\n${pieces.join('')}`,
						'latin1',
					);
					const inline = parseSimpleMessage(raw);
					if (!inline) return;
					inlined++;
					expect(inline).toEqual(await parseMessage(raw));
				},
			),
			{ numRuns: RUNS },
		);
		expect(inlined).toBeGreaterThan(RUNS / 4);
	}, 120_000);

	it.each([
		[
			'a multipart message',
			'Content-Type: multipart/alternative; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nhi\r\n--b--\r\n',
		],
		['an HTML message', 'Content-Type: text/html\r\n\r\n<p>hi</p>\r\n'],
		['another charset', 'Content-Type: text/plain; charset=iso-8859-1\r\n\r\ncaf\xe9\r\n'],
		['format=flowed text', 'Content-Type: text/plain; format=flowed\r\n\r\nsoft \r\nbreak\r\n'],
		['an attachment', 'Content-Type: text/plain\r\nContent-Disposition: attachment; filename=a.txt\r\n\r\nhi\r\n'],
		['broken base64', 'Content-Transfer-Encoding: base64\r\n\r\naGk=!!\r\n'],
		['a bare LF in the headers', 'Subject: a\nX: b\r\n\r\nhi\r\n'],
		['no header block', 'just a line\r\n'],
		['text that would cost link detection too much', `Subject: w\r\n\r\n${`http://${'x'.repeat(800)} `.repeat(2)}\r\n`],
		['a message over the inline size', `Subject: big\r\n\r\n${'word '.repeat(INLINE_PARSE_MAX_BYTES / 5)}\r\n`],
		['address headers too long to decode on the event loop', `To: ${'a@b.test, '.repeat(60)}\r\n\r\nhi\r\n`],
		['a header block too large to decode on the event loop', `${'X-Filler: some header value\r\n'.repeat(300)}\r\nhi\r\n`],
	])('leaves %s to the parser threads', (_name, message) => {
		expect(parseSimpleMessage(Buffer.from(message, 'latin1'))).toBeUndefined();
	});

	it('reads the priority from X-Priority and Importance, on both paths', async () => {
		for (const [header, priority] of [
			['X-Priority: 1 (Highest)', 'high'],
			['Importance: low', 'low'],
			['X-Priority: 3', 'normal'],
		]) {
			const simple = Buffer.from(`From: a@b.test\r\n${header}\r\n\r\nhi\r\n`);
			const multipart = Buffer.from(
				`From: a@b.test\r\n${header}\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n\r\nhi\r\n--b--\r\n`,
			);
			expect(parseSimpleMessage(simple)!.priority).toBe(priority);
			expect((await parseMessage(multipart)).priority).toBe(priority);
		}
	});
});
