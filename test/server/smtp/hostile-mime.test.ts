import { ParserPool } from 'mailroom-server/dist/parse/parser-pool';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { enc } from '../../helpers/messages';

/**
 * Malformed MIME, generated here: each message is stored (never refused, never a crash or a
 * hang) and readable afterwards. What the parser cannot read (past its limits of 1000 MIME
 * parts or a 1 MB header block) is stored unparsed: the record has no subject or senders,
 * and the raw message is kept whole.
 */
const CRLF = '\r\n';

function message(to: string, headers: string[], body: string | Buffer): Buffer {
	return Buffer.concat([
		Buffer.from([`From: hostile@sender.test`, `To: ${to}`, ...headers, '', ''].join(CRLF), 'latin1'),
		Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'),
	]);
}

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
			message(
				to,
				['Subject: no boundary', 'Content-Type: multipart/mixed'],
				`--x${CRLF}Content-Type: text/plain${CRLF}${CRLF}hello${CRLF}--x--${CRLF}`,
			),
		check: ({ record }) => expect(record.subject).toBe('no boundary'),
	},
	{
		name: 'a boundary that never appears',
		build: (to) => message(to, ['Subject: absent boundary', 'Content-Type: multipart/mixed; boundary="absent"'], `just text${CRLF}`),
		check: ({ record }) => expect(record.subject).toBe('absent boundary'),
	},
	{
		name: 'a boundary that is opened but never closed, inside another one',
		build: (to) =>
			message(
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
		build: (to) => message(to, ['Subject: deep', 'Content-Type: multipart/mixed; boundary="b0"'], nested(1000)),
		check: unparsed,
	},
	{
		name: '200 levels of nested multiparts (within the parser limits)',
		build: (to) => message(to, ['Subject: deep but fine', 'Content-Type: multipart/mixed; boundary="b0"'], nested(200)),
		check: ({ record, text }) => {
			expect(record.subject).toBe('deep but fine');
			expect(text.trim()).toBe('innermost');
		},
	},
	{
		name: '5000 attachments',
		build: (to) => message(to, ['Subject: parts', 'Content-Type: multipart/mixed; boundary="p"'], manyParts(5000)),
		check: unparsed,
	},
	{
		name: '500 attachments (within the parser limits)',
		build: (to) => message(to, ['Subject: parts', 'Content-Type: multipart/mixed; boundary="p"'], manyParts(500)),
		check: ({ record }) => {
			expect(record.attachments).toHaveLength(500);
			for (const md5 of record.attachments!) expect(md5).toMatch(/^[0-9a-f]{32}$/);
		},
	},
	{
		name: 'a 2 MB header line',
		build: (to) => message(to, ['Subject: huge header', `X-Huge: ${'h'.repeat(2 * 1024 * 1024)}`], `body${CRLF}`),
		check: unparsed,
	},
	{
		name: 'a header folded over 200,000 lines',
		build: (to) => message(to, [`Subject: folded${`${CRLF} more`.repeat(200_000)}`], `body${CRLF}`),
		check: unparsed,
	},
	{
		name: 'a header folded over 1000 lines',
		build: (to) => message(to, [`Subject: folded${`${CRLF} more`.repeat(1000)}`], `body${CRLF}`),
		check: ({ record }) => expect(record.subject).toBe(`folded${' more'.repeat(1000)}`),
	},
	{
		name: 'broken base64',
		build: (to) =>
			message(
				to,
				['Subject: bad base64', 'Content-Type: text/plain', 'Content-Transfer-Encoding: base64'],
				`!!not*base64%%${CRLF}aGVsbG8=${CRLF}===${CRLF}`,
			),
		check: ({ record }) => expect(record.subject).toBe('bad base64'),
	},
	{
		name: 'broken quoted-printable',
		build: (to) =>
			message(
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
		build: (to) => message(to, ['Subject: =?x-klingon?Q?qapla?=', 'Content-Type: text/plain; charset=x-klingon'], `Qapla'${CRLF}`),
		check: ({ text }) => expect(text.trim()).toBe("Qapla'"),
	},
	{
		name: 'NUL bytes in a header and the body',
		build: (to) => message(to, ['Subject: nul\0here'], `be\0fore${CRLF}`),
		check: ({ record, text }) => {
			expect(record.subject).toBe('nul\0here');
			expect(text).toContain('be\0fore');
		},
	},
	{
		name: '8-bit bytes in headers that are not UTF-8',
		build: (to) => message(to, ['Subject: caf\xe9 \xff\xfe', 'Reply-To: J\xfcrgen <j@sender.test>'], `body${CRLF}`),
		check: ({ record }) => expect(record.subject).toBe('caf\ufffd \ufffd\ufffd'),
	},
	{
		name: 'a body line of 8 MB',
		build: (to) => message(to, ['Subject: long line'], `${'x'.repeat(8 * 1024 * 1024)}${CRLF}`),
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

		const list = await server.api(`/api/addresses/${enc(to)}/messages`);
		expect(list.status).toBe(200);
		expect(list.body).toHaveLength(1);
		const record = list.body[0];
		expect(record._id).toBe(id);
		expect(record.size).toBe(raw.length);
		const text = await server.api(`/api/text/${enc(to)}/${id}`);
		expect(text.status).toBe(200);
		const source = await fetch(`${server.httpUrl}/api/raw/${enc(to)}/${id}`);
		expect(source.status).toBe(200);
		expect(Buffer.from(await source.arrayBuffer()).equals(raw)).toBe(true);
		check({ record, text: text.text });
	});

	it('keeps working afterwards', async () => {
		const info = await server.send({ from: 'a@sender.test', to: 'after@hostile.test', subject: 'after', text: 'still here' });
		expect(info.response).toMatch(/^250 /);
		const list = await server.api('/api/addresses/after@hostile.test/messages');
		expect(list.body.map((m: { subject: string }) => m.subject)).toEqual(['after']);
	});
});

/** 100,000 links in 5 MB of HTML: about a second of parsing in memory, well past a timeout of 250 ms; streamed from a spool file, under a second. */
function slowMessage(to: string): Buffer {
	const html = `<p>${Array.from({ length: 100_000 }, (_, i) => `<a href="https://x${i}.slow.test/">link ${i}</a>`).join('</p><p>')}</p>`;
	return message(to, ['Subject: slow', 'Content-Type: text/html'], `${html}${CRLF}`);
}

describe('quoted-printable with a long run of blanks', () => {
	it('parses in memory well within a timeout (libqp 2.1.2 alone takes minutes: its trailing-blank regex is quadratic)', async () => {
		const pool = new ParserPool(1, 5000);
		try {
			const body = `caf=C3=A9${' '.repeat(300_000)}au lait=\r\n${'\t'.repeat(200_000)}${CRLF}end${CRLF}`;
			const raw = message(
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

describe('parse timeout', () => {
	it('stores a message that takes longer than --parse-timeout unparsed, and the parser keeps working', async () => {
		// Through SMTP it is spooled (5 MB) and parsed as a stream, which takes a few hundred milliseconds.
		const server = await startTestMailroom({ parseWorkers: 2, parseTimeout: 50 });
		try {
			await server.send({ from: 'a@sender.test', to: 'warm@slow.test', subject: 'warm-up', text: 'x' });
			const raw = slowMessage('slow@slow.test');
			const info = await server.send({ envelope: { from: 'a@sender.test', to: ['slow@slow.test'] }, raw });
			expect(info.response).toMatch(/^250 /);
			const [record] = (await server.api('/api/addresses/slow@slow.test/messages')).body;
			expect(record).toMatchObject({ subject: '', from: [], links: [], size: raw.length });

			await server.send({ from: 'a@sender.test', to: 'next@slow.test', subject: 'next', text: 'x' });
			expect((await server.api('/api/addresses/next@slow.test/messages')).body[0].subject).toBe('next');
		} finally {
			await server.stop();
		}
	});

	it('applies to each message also when it arrives together with others (one batch)', async () => {
		const pool = new ParserPool(1, 250);
		try {
			const normal = ['one', 'two', 'three', 'four'].map((subject) => message('x@slow.test', [`Subject: ${subject}`], `body${CRLF}`));
			const outcomes = await Promise.all([...normal, slowMessage('x@slow.test')].map((raw) => pool.parse(raw)));
			expect(outcomes.map((outcome) => outcome.parsed.subject)).toEqual(['one', 'two', 'three', 'four', '']);
			expect(outcomes[4].error).toBeInstanceOf(Error);
		} finally {
			await pool.close();
		}
	});

	it('does not count the wait for a free parser thread', async () => {
		const pool = new ParserPool(1, 250);
		try {
			const slow = pool.parse(slowMessage('x@slow.test'));
			// A separate task, queued behind the slow one on the only thread until the slow one times out.
			await new Promise((resolve) => setImmediate(resolve));
			const waiting = pool.parse(message('x@slow.test', ['Subject: waited'], `body${CRLF}`));
			expect((await slow).parsed.subject).toBe('');
			const outcome = await waiting;
			expect(outcome.parsed.subject).toBe('waited');
			expect(outcome.error).toBeUndefined();
		} finally {
			await pool.close();
		}
	});
});
