import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ParserPool } from 'mailroom-server/dist/parse/parser-pool';
import { inboxMessages, onlyMessage } from '../../helpers/inboxes';
import { CRLF, mimeMessage } from '../../helpers/raw-messages';
import { startTestMailroom } from '../../helpers/mailroom';

const message = (subject: string, attachmentSize = 0) => {
	const attachment = attachmentSize
		? `--b\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n\r\n${Buffer.alloc(attachmentSize, subject).toString('base64')}\r\n`
		: '';
	const text = `From: a@sender.test\r\nTo: b@example.test\r\nSubject: ${subject}\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nbody of ${subject}\r\n${attachment}--b--\r\n`;
	const raw = Buffer.from(new SharedArrayBuffer(Buffer.byteLength(text)));
	raw.write(text);
	return raw;
};

describe('ParserPool', () => {
	let pool: ParserPool;
	beforeAll(() => {
		pool = new ParserPool(1, 10_000);
	});
	afterAll(() => pool.close());

	it('parses messages that arrive together as one batch, each getting its own result', async () => {
		const subjects = Array.from({ length: 25 }, (_, i) => `message ${i}`);
		const outcomes = await Promise.all(subjects.map((subject, i) => pool.parse(message(subject, i % 5 === 0 ? 64 * 1024 : 0))));
		expect(outcomes.map((outcome) => outcome.parsed.subject)).toEqual(subjects);
		expect(outcomes.every((outcome) => outcome.error === undefined)).toBe(true);
		outcomes.forEach(({ parsed }, i) => {
			expect(typeof parsed.text === 'string' && parsed.text.trim()).toBe(`body of message ${i}`);
			// large attachments come back moved, not copied, and intact
			expect(parsed.attachments.map((a) => a.length)).toEqual(i % 5 === 0 ? [64 * 1024] : []);
		});
	});

	it('parses a message on its own when it arrives alone', async () => {
		const outcome = await pool.parse(message('alone'));
		expect(outcome.parsed.subject).toBe('alone');
	});
});

/** 100,000 links in 5 MB of HTML: about a second of parsing in memory, well past a timeout of 250 ms; streamed from a spool file, under a second. */
function slowMessage(to: string): Buffer {
	const html = `<p>${Array.from({ length: 100_000 }, (_, i) => `<a href="https://x${i}.slow.test/">link ${i}</a>`).join('</p><p>')}</p>`;
	return mimeMessage(to, ['Subject: slow', 'Content-Type: text/html'], `${html}${CRLF}`);
}

describe('parse timeout', () => {
	it('stores a message that takes longer than --parse-timeout unparsed, and the parser keeps working', async () => {
		// Through SMTP it is spooled (5 MB) and parsed as a stream, which takes a few hundred milliseconds.
		const server = await startTestMailroom({ parseWorkers: 2, parseTimeout: 50 });
		try {
			await server.send({ from: 'a@sender.test', to: 'warm@slow.test', subject: 'warm-up', text: 'x' });
			const raw = slowMessage('slow@slow.test');
			const info = await server.send({ envelope: { from: 'a@sender.test', to: ['slow@slow.test'] }, raw });
			expect(info.response).toMatch(/^250 /);
			const record = await onlyMessage(server, 'slow@slow.test');
			expect(record).toMatchObject({ subject: '', from: [], links: [], size: raw.length });

			await server.send({ from: 'a@sender.test', to: 'next@slow.test', subject: 'next', text: 'x' });
			expect((await inboxMessages(server, 'next@slow.test'))[0].subject).toBe('next');
		} finally {
			await server.stop();
		}
	});

	it('applies to each message also when it arrives together with others (one batch)', async () => {
		const pool = new ParserPool(1, 250);
		try {
			const normal = ['one', 'two', 'three', 'four'].map((subject) => mimeMessage('x@slow.test', [`Subject: ${subject}`], `body${CRLF}`));
			const outcomes = await Promise.all([...normal, slowMessage('x@slow.test')].map((raw) => pool.parse(raw)));
			expect(outcomes.map((outcome) => outcome.parsed.subject)).toEqual(['one', 'two', 'three', 'four', '']);
			expect(outcomes[4].error?.message).toBe('parsing took longer than 250 ms');
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
			const waiting = pool.parse(mimeMessage('x@slow.test', ['Subject: waited'], `body${CRLF}`));
			expect((await slow).parsed.subject).toBe('');
			const outcome = await waiting;
			expect(outcome.parsed.subject).toBe('waited');
			expect(outcome.error).toBeUndefined();
		} finally {
			await pool.close();
		}
	});
});
