import { types } from 'node:util';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { parseMessage } from 'mailroom-server/dist/parse/parse-message';
import { ParserPool } from 'mailroom-server/dist/parse/parser-pool';
import { CRLF, FUZZ_RUNS, mimeMessage, rawMessage } from '../../helpers/raw-messages';
import { countRows, onlyMessage, stillAccepts, subjects } from '../../helpers/inboxes';
import { HTML_PARAGRAPHS, largeBody, largeHtmlOnly, served } from '../../helpers/large-messages';
import { enc, sendRawTo } from '../../helpers/messages';
import { spoolEntries } from '../../helpers/spool';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';

const md5 = (data: string | Buffer) => createHash('md5').update(data).digest('hex');

describe('parseMessage, fuzzed', () => {
	it(`parseMessage settles on any input, with a result or an Error (${FUZZ_RUNS} cases)`, async () => {
		await fc.assert(
			fc.asyncProperty(rawMessage, async (raw) => {
				const outcome: unknown = await parseMessage(raw).then(
					(parsed) => parsed.subject,
					(err: unknown) => err,
				);
				// The server's errors are of Node's realm, not the test file's (see jest.config.js): isNativeError knows both.
				if (!types.isNativeError(outcome)) expect(typeof outcome).toBe('string');
			}),
			{ numRuns: FUZZ_RUNS },
		);
	}, 90_000);
});

describe('parsing what SMTP delivers', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom({ domains: ['example.test', 'other.test'], maxMessageSize: 64 * 1024 });
	});
	afterAll(() => server.stop());

	it('keeps a Bcc header as a list of address objects', async () => {
		const raw = 'From: a@sender.test\r\nTo: x@example.test\r\nBcc: Hidden <hidden@example.test>\r\nSubject: bcc\r\n\r\nb\r\n';
		await server.send({ envelope: { from: 'a@sender.test', to: ['bcchead@example.test'] }, raw });
		const record = await onlyMessage(server, 'bcchead@example.test');
		expect(record.bcc).toEqual([{ address: 'hidden@example.test', name: 'Hidden' }]);
	});

	it('decodes non-UTF-8 charsets and encoded headers', async () => {
		const body = Buffer.from('Grüße aus Köln', 'latin1').toString('base64');
		const raw = [
			'From: =?ISO-8859-1?Q?J=FCrgen_M=FCller?= <jm@sender.test>',
			'To: charset@example.test',
			'Subject: =?UTF-8?B?0J/RgNC40LLQtdGCLCDQvNC40YAh?=',
			'MIME-Version: 1.0',
			'Content-Type: text/plain; charset=ISO-8859-1',
			'Content-Transfer-Encoding: base64',
			'',
			body,
			'',
		].join('\r\n');
		await server.send({ envelope: { from: 'jm@sender.test', to: ['charset@example.test'] }, raw });
		const record = await onlyMessage(server, 'charset@example.test');
		expect(record.subject).toBe('Привет, мир!');
		expect(record.from).toEqual([{ address: 'jm@sender.test', name: 'Jürgen Müller' }]);
		const text = await server.api(`/api/text/charset@example.test/${record._id}`);
		expect(text.text.trim()).toBe('Grüße aus Köln');
	});

	it('decodes a Windows-1251 body', async () => {
		const raw = Buffer.concat([
			Buffer.from(
				'From: a@sender.test\r\nTo: cp1251@example.test\r\nSubject: cp\r\nContent-Type: text/plain; charset=windows-1251\r\n\r\n',
			),
			Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]),
			Buffer.from('\r\n'),
		]);
		await server.send({ envelope: { from: 'a@sender.test', to: ['cp1251@example.test'] }, raw });
		const record = await onlyMessage(server, 'cp1251@example.test');
		expect((await server.api(`/api/text/cp1251@example.test/${record._id}`)).text.trim()).toBe('Привет');
	});

	it('identifies attachments by the MD5 of their content', async () => {
		const pdf = Buffer.from('%PDF-1.4 fake pdf content for the test');
		const large = Buffer.alloc(24 * 1024, 'large attachment ');
		await server.send({
			from: 'files@sender.test',
			to: 'files@example.test',
			subject: 'Attachments',
			text: 'two files',
			attachments: [
				{ filename: 'notes.txt', content: 'some notes' },
				{ filename: 'doc.pdf', content: pdf, contentType: 'application/pdf' },
				// large enough to own its memory, so the parser worker moves it instead of copying
				{ filename: 'big.bin', content: large },
			],
		});
		const record = await onlyMessage(server, 'files@example.test');
		expect(record.attachments).toEqual([md5('some notes'), md5(pdf), md5(large)]);
	});

	it('stores malformed MIME instead of crashing or refusing it', async () => {
		const raw = [
			'From: broken@sender.test',
			'To: malformed@example.test',
			'Subject: broken',
			'Content-Type: multipart/mixed; boundary="never-closed"',
			'',
			'--never-closed',
			'Content-Type: text/plain',
			'Content-Transfer-Encoding: base64',
			'',
			'!!!not base64 at all###',
			'--wrong-boundary--',
			'',
		].join('\r\n');
		const info = await server.send({ envelope: { from: 'broken@sender.test', to: ['malformed@example.test'] }, raw });
		expect(info.response).toMatch(/^250 /);
		const record = await onlyMessage(server, 'malformed@example.test');
		expect(record.subject).toBe('broken');
		expect(record.size).toBe(Buffer.byteLength(raw));
		// the server still works afterwards
		await server.send({ from: 'a@sender.test', to: 'after@example.test', subject: 'after', text: 'ok' });
		expect((await onlyMessage(server, 'after@example.test')).subject).toBe('after');
	});

	// These read the text the API serves (its links numbered by server/http/render/numbered-links.ts).
	it('stores multipart text+HTML with links from both bodies', async () => {
		await server.send({
			from: 'news@sender.test',
			to: 'multi@example.test',
			subject: 'Both parts',
			text: 'Plain version: https://example.org/plain and again https://example.org/plain',
			html: '<p>HTML version: <a href="https://example.org/html">click</a> <a href="mailto:x@y.z">mail</a></p>',
		});
		const record = await onlyMessage(server, 'multi@example.test');
		expect(record.links.sort()).toEqual(['https://example.org/html', 'https://example.org/plain']);
		const text = await server.api(`/api/text/multi@example.test/${record._id}`);
		expect(text.status).toBe(200);
		expect(text.headers.get('content-type')).toMatch(/^text\/plain/);
		expect(text.text).toBe('Plain version: [1] and again [1]\n\n\n\n[1] https://example.org/plain\n');
	});

	it('converts HTML-only mail to text with numbered links', async () => {
		await server.send({
			from: 'html@sender.test',
			to: 'htmlonly@example.test',
			subject: 'HTML only',
			html: '<h1>Welcome</h1><p>Please <a href="https://example.org/verify?t=1">verify your address</a> or <a href="https://example.org/help">get help</a>.</p>',
		});
		const record = await onlyMessage(server, 'htmlonly@example.test');
		expect(record.links).toEqual(['https://example.org/verify?t=1', 'https://example.org/help']);
		const text = await server.api(`/api/text/htmlonly@example.test/${record._id}`);
		expect(text.text).toContain('verify your address [1] or get help [2]');
		expect(text.text).toMatch(/\n\n\n\n\[1\] https:\/\/example\.org\/verify\?t=1\n\[2\] https:\/\/example\.org\/help\n$/);
		expect(text.text).not.toContain('<');
	});
});

/**
 * Malformed MIME, generated here: each message is stored (never refused, never a crash or a
 * hang) and readable afterwards. What the parser cannot read (past its limits of 1000 MIME
 * parts or a 1 MB header block) is stored unparsed: the record has no subject or senders,
 * and the raw message is kept whole.
 */
function nested(depth: number): string {
	let open = '';
	let close = '';
	for (let level = 0; level < depth; level++) {
		open += `--b${level}${CRLF}Content-Type: multipart/mixed; boundary="b${level + 1}"${CRLF}${CRLF}`;
		close = `--b${level + 1}--${CRLF}${close}`;
	}
	return `${open}--b${depth}${CRLF}Content-Type: text/plain${CRLF}${CRLF}innermost${CRLF}${close}--b0--${CRLF}`;
}

function manyParts(count: number): string {
	const parts = Array.from(
		{ length: count },
		(_, i) =>
			`--p${CRLF}Content-Type: application/octet-stream${CRLF}Content-Disposition: attachment; filename="f${i}.bin"${CRLF}${CRLF}part ${i}${CRLF}`,
	);
	return `${parts.join('')}--p--${CRLF}`;
}

interface Stored {
	record: { _id: string; subject: string; from: { address: string; name: string }[]; size: number; attachments: string[] | null };
	text: string;
}

interface HostileCase {
	name: string;
	build: (to: string) => Buffer;
	check: (stored: Stored) => void;
}

const unparsed = ({ record }: Stored) => expect(record).toMatchObject({ subject: '', from: [], attachments: null });

const CASES: HostileCase[] = [
	{
		name: 'a multipart with no boundary parameter',
		build: (to) =>
			mimeMessage(
				to,
				['Subject: no boundary', 'Content-Type: multipart/mixed'],
				`--x${CRLF}Content-Type: text/plain${CRLF}${CRLF}hello${CRLF}--x--${CRLF}`,
			),
		check: ({ record }) => expect(record.subject).toBe('no boundary'),
	},
	{
		name: 'a boundary that never appears',
		build: (to) => mimeMessage(to, ['Subject: absent boundary', 'Content-Type: multipart/mixed; boundary="absent"'], `just text${CRLF}`),
		check: ({ record }) => expect(record.subject).toBe('absent boundary'),
	},
	{
		name: 'a boundary that is opened but never closed, inside another one',
		build: (to) =>
			mimeMessage(
				to,
				['Subject: unclosed', 'Content-Type: multipart/mixed; boundary="outer"'],
				`--outer${CRLF}Content-Type: multipart/alternative; boundary="inner"${CRLF}${CRLF}--inner${CRLF}Content-Type: text/plain${CRLF}${CRLF}unclosed body${CRLF}--outer--${CRLF}`,
			),
		check: ({ record, text }) => {
			expect(record.subject).toBe('unclosed');
			expect(text).toContain('unclosed body');
		},
	},
	{
		name: '1000 levels of nested multiparts',
		build: (to) => mimeMessage(to, ['Subject: deep', 'Content-Type: multipart/mixed; boundary="b0"'], nested(1000)),
		check: unparsed,
	},
	{
		name: '200 levels of nested multiparts (within the parser limits)',
		build: (to) => mimeMessage(to, ['Subject: deep but fine', 'Content-Type: multipart/mixed; boundary="b0"'], nested(200)),
		check: ({ record, text }) => {
			expect(record.subject).toBe('deep but fine');
			expect(text.trim()).toBe('innermost');
		},
	},
	{
		name: '5000 attachments',
		build: (to) => mimeMessage(to, ['Subject: parts', 'Content-Type: multipart/mixed; boundary="p"'], manyParts(5000)),
		check: unparsed,
	},
	{
		name: '500 attachments (within the parser limits)',
		build: (to) => mimeMessage(to, ['Subject: parts', 'Content-Type: multipart/mixed; boundary="p"'], manyParts(500)),
		check: ({ record }) => {
			expect(record.attachments).toHaveLength(500);
			for (const md5 of record.attachments!) expect(md5).toMatch(/^[0-9a-f]{32}$/);
		},
	},
	{
		name: 'a 2 MB header line',
		build: (to) => mimeMessage(to, ['Subject: huge header', `X-Huge: ${'h'.repeat(2 * 1024 * 1024)}`], `body${CRLF}`),
		check: unparsed,
	},
	{
		name: 'a header folded over 200,000 lines',
		build: (to) => mimeMessage(to, [`Subject: folded${`${CRLF} more`.repeat(200_000)}`], `body${CRLF}`),
		check: unparsed,
	},
	{
		name: 'a header folded over 1000 lines',
		build: (to) => mimeMessage(to, [`Subject: folded${`${CRLF} more`.repeat(1000)}`], `body${CRLF}`),
		check: ({ record }) => expect(record.subject).toBe(`folded${' more'.repeat(1000)}`),
	},
	{
		name: 'broken base64',
		build: (to) =>
			mimeMessage(
				to,
				['Subject: bad base64', 'Content-Type: text/plain', 'Content-Transfer-Encoding: base64'],
				`!!not*base64%%${CRLF}aGVsbG8=${CRLF}===${CRLF}`,
			),
		check: ({ record }) => expect(record.subject).toBe('bad base64'),
	},
	{
		name: 'broken quoted-printable',
		build: (to) =>
			mimeMessage(
				to,
				['Subject: bad qp', 'Content-Type: text/plain', 'Content-Transfer-Encoding: quoted-printable'],
				`=ZZ=4 soft=${CRLF}=${CRLF}end=3D=E${CRLF}`,
			),
		check: ({ record, text }) => {
			expect(record.subject).toBe('bad qp');
			expect(text).toContain('end=');
		},
	},
	{
		name: 'an unknown charset',
		build: (to) => mimeMessage(to, ['Subject: =?x-klingon?Q?qapla?=', 'Content-Type: text/plain; charset=x-klingon'], `Qapla'${CRLF}`),
		check: ({ text }) => expect(text.trim()).toBe("Qapla'"),
	},
	{
		name: 'NUL bytes in a header (read as U+FFFD, which PostgreSQL text can hold) and the body (kept)',
		build: (to) => mimeMessage(to, ['Subject: nul\0here'], `be\0fore${CRLF}`),
		check: ({ record, text }) => {
			expect(record.subject).toBe('nul\uFFFDhere');
			expect(text).toContain('be\0fore');
		},
	},
	{
		name: '8-bit bytes in headers that are not UTF-8',
		build: (to) => mimeMessage(to, ['Subject: caf\xe9 \xff\xfe', 'Reply-To: J\xfcrgen <j@sender.test>'], `body${CRLF}`),
		check: ({ record }) => expect(record.subject).toBe('caf\ufffd \ufffd\ufffd'),
	},
	{
		name: 'a body line of 8 MB',
		build: (to) => mimeMessage(to, ['Subject: long line'], `${'x'.repeat(8 * 1024 * 1024)}${CRLF}`),
		check: ({ record, text }) => {
			expect(record.subject).toBe('long line');
			expect(text.trim()).toHaveLength(8 * 1024 * 1024);
		},
	},
];

describe('hostile MIME', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom({ domains: ['hostile.test'], parseWorkers: 2 });
	});
	afterAll(() => server.stop());

	it.each(CASES.map((c, i) => [c.name, i] as const))('stores %s', async (_name, index) => {
		const { build, check } = CASES[index];
		const to = `mime${index}@hostile.test`;
		const raw = build(to);
		const info = await server.send({ envelope: { from: 'hostile@sender.test', to: [to] }, raw });
		const id = /^250 OK: stored as (\S+)$/.exec(info.response)![1];

		const record = await onlyMessage(server, to);
		expect(record._id).toBe(id);
		expect(record.size).toBe(raw.length);
		const text = await server.api(`/api/text/${enc(to)}/${id}`);
		expect(text.status).toBe(200);
		const source = await fetch(`${server.httpUrl}/api/raw/${enc(to)}/${id}`);
		expect(source.status).toBe(200);
		expect(Buffer.from(await source.arrayBuffer()).equals(raw)).toBe(true);
		check({ record, text: text.text });
	});

	it('stores messages whose headers are address-parser bombs', async () => {
		const bombs = [
			`To: ${Array.from({ length: 20_000 }, (_, i) => `"n${i}" <u${i}@limits.test>`).join(`,${CRLF} `)}`,
			`To: ${'group:'.repeat(10_000)}x@limits.test${';'.repeat(10_000)}`,
			`To: ${'('.repeat(100_000)}x@limits.test`,
			`To: ${'<'.repeat(100_000)}x@limits.test${'>'.repeat(100_000)}`,
			`To: ${'"'.repeat(100_000)}x@limits.test`,
		];
		for (const [i, header] of bombs.entries()) {
			const inbox = `bomb${i}@hostile.test`;
			const raw = `From: bomber@sender.test${CRLF}${header}${CRLF}Subject: bomb ${i}${CRLF}${CRLF}boom${CRLF}`;
			const info = await server.send({ envelope: { from: 'bomber@sender.test', to: [inbox] }, raw });
			expect(info.response).toMatch(/^250 /);
			expect((await onlyMessage(server, inbox)).size).toBe(Buffer.byteLength(raw));
		}
		await stillAccepts(server, 'after-bombs@hostile.test');
	});

	it('keeps working afterwards', async () => {
		const info = await server.send({ from: 'a@sender.test', to: 'after@hostile.test', subject: 'after', text: 'still here' });
		expect(info.response).toMatch(/^250 /);
		expect(await subjects(server, 'after@hostile.test')).toEqual(['after']);
	});
});

describe('quoted-printable with a long run of blanks', () => {
	it('parses in memory well within a timeout (libqp 2.1.2 alone takes minutes: its trailing-blank regex is quadratic)', async () => {
		const pool = new ParserPool(1, 5000);
		try {
			const body = `caf=C3=A9${' '.repeat(300_000)}au lait=\r\n${'\t'.repeat(200_000)}${CRLF}end${CRLF}`;
			const raw = mimeMessage(
				'qp@hostile.test',
				['Subject: blanks', 'Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: quoted-printable'],
				body,
			);
			expect(raw.length).toBeLessThan(1024 * 1024); // parsed in memory, not spooled
			const outcome = await pool.parse(raw);
			expect(outcome.error).toBeUndefined();
			expect(outcome.parsed.subject).toBe('blanks');
			expect(outcome.parsed.text).toBe(`café${' '.repeat(300_000)}au lait\nend\n`);
		} finally {
			await pool.close();
		}
	});
});

describe('large (spooled) messages', () => {
	let spooling: TestMailroom;
	beforeAll(async () => {
		spooling = await startTestMailroom({ spoolThreshold: 64 * 1024 });
	});
	afterAll(() => spooling.stop());

	it('turn a large HTML-only body into text a piece at a time', async () => {
		await sendRawTo(spooling, 'html@bodies.test', await largeHtmlOnly(), 'html@sender.test');
		const record = await onlyMessage(spooling, 'html@bodies.test');
		expect(record.links).toEqual(Array.from({ length: 20 }, (_, i) => `https://example.test/p${i}`));
		const { text } = await served(spooling, 'html@bodies.test', record._id);
		expect(text.startsWith('Paragraph 0 with a link [1] & more.')).toBe(true);
		expect(text).toMatch(/^Paragraph 29999 with a link .* & more\.$/m);
		expect(text.match(/^Paragraph \d+ /gm)).toHaveLength(HTML_PARAGRAPHS);
	});

	it('a parse that fails still stores the message whole, as its text', async () => {
		const slow = await startTestMailroom({ spoolThreshold: 64 * 1024, parseTimeout: 1 });
		try {
			// 2.5 MB: spooled, and its text more than one window and piece.
			const sent = await largeBody('latin@bodies.test');
			await sendRawTo(slow, 'unparsed@spool.test', sent);
			const record = await onlyMessage(slow, 'unparsed@spool.test');
			const raw = Buffer.from(await (await fetch(`${slow.httpUrl}/api/raw/unparsed@spool.test/${record._id}`)).arrayBuffer());
			expect(raw.length).toBe(record.size);
			expect(record.subject).toBe('');
			expect(raw.equals(sent)).toBe(true);
			// Its text is its raw source, written out a window at a time and stored in pieces.
			expect(await (await slow.store.messages.content('unparsed@spool.test', record._id))!.text()).toBe(raw.toString('latin1'));
			expect(await countRows(slow, 'content_body_pieces')).toBe(Math.ceil(Buffer.byteLength(raw.toString('latin1')) / (1024 * 1024)));
			expect(spoolEntries(slow)).toEqual([]);
		} finally {
			await slow.stop();
		}
	});
});
