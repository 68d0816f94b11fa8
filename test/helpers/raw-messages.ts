import fc from 'fast-check';

/**
 * Raw messages, the bytes a client sends after DATA: one written out header by header, and random ones for
 * property-based fuzzing of the raw-message-to-record path.
 */

export const CRLF = '\r\n';

/** A message from hostile@sender.test to `to` with `headers` (lines without CRLF), then `body` as it is (latin1 when text). */
export function mimeMessage(to: string, headers: string[], body: string | Buffer): Buffer {
	return Buffer.concat([
		Buffer.from([`From: hostile@sender.test`, `To: ${to}`, ...headers, '', ''].join(CRLF), 'latin1'),
		Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'),
	]);
}

/**
 * For fuzzing: structured raw messages steered into the parser's odd corners, and plain random bytes. FUZZ_RUNS raises
 * the number of cases for a longer local run; CI runs the default.
 */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 200);

const HEADER_NAMES = [
	'From',
	'To',
	'Cc',
	'Bcc',
	'Subject',
	'Reply-To',
	'Date',
	'Message-ID',
	'MIME-Version',
	'Content-Type',
	'Content-Transfer-Encoding',
	'Content-Disposition',
	'X-Priority',
];

/** Pieces that steer the parser into its odd corners. */
const TRICKY = [
	'multipart/mixed; boundary="b"',
	'multipart/alternative; boundary=b',
	'multipart/mixed',
	'message/rfc822',
	'text/html; charset=x-unknown',
	'text/plain; charset=utf-16',
	'text/plain; charset="iso-2022-jp"',
	'base64',
	'quoted-printable',
	'8bit',
	'binary',
	'=?utf-8?B?////?=',
	'=?iso-8859-1?Q?J=FCrgen=?=',
	'=?x-unknown?Q?a?=',
	'<a@b.test>',
	'"x" <y@z.test>, g: a@b.test, c@d.test;',
	'((((',
	')>',
	'\u0000',
	'attachment; filename="../../etc/passwd"',
	"inline; filename*=utf-8''%E2%82%AC.txt",
	'Thu, 31 Feb 2099 25:61:61 +9999',
];
const BODY_LINES = [
	'--b',
	'--b--',
	'Content-Type: text/plain',
	'Content-Type: multipart/mixed; boundary=b',
	'Content-Transfer-Encoding: base64',
	'',
	'.',
	'..',
	'=',
	'=ZZ',
	'=E9=',
	'AAAA====',
	'<html><a href="https://x.test/a">x</a>',
	'https://example.test/path?q=1',
];

const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 60 }), fc.constantFrom(...TRICKY), fc.emailAddress());
const header = fc.tuple(
	fc.oneof(fc.constantFrom(...HEADER_NAMES), fc.stringMatching(/^[!-9;-~]{1,20}$/)),
	fc.array(text, { maxLength: 4 }).map((parts) => parts.join(' ')),
);
const bodyLine = fc.oneof(
	fc.string({ unit: 'binary', maxLength: 100 }),
	fc.constantFrom(...BODY_LINES),
	fc.base64String({ maxLength: 120 }),
);

const structured = fc
	.record({
		headers: fc.array(header, { maxLength: 14 }),
		body: fc.array(bodyLine, { maxLength: 40 }),
		eol: fc.constantFrom('\r\n', '\r\n', '\n', '\r'),
		encoding: fc.constantFrom<BufferEncoding>('utf8', 'latin1'),
	})
	.map(({ headers, body, eol, encoding }) =>
		Buffer.from([...headers.map(([name, value]) => `${name}: ${value}`), '', ...body].join(eol), encoding),
	);
export const rawMessage = fc.oneof(
	{ weight: 4, arbitrary: structured },
	{ weight: 1, arbitrary: fc.uint8Array({ maxLength: 4000 }).map((bytes) => Buffer.from(bytes)) },
);

/** As readRaw hands it to the parser: in a SharedArrayBuffer. */
export function shared(raw: Buffer): Buffer {
	const copy = Buffer.from(new SharedArrayBuffer(raw.length));
	raw.copy(copy);
	return copy;
}
