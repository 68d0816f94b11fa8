import { ParserPool } from 'mailroom-server/dist/parse/parser-pool';

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
	beforeAll(() => (pool = new ParserPool(1, 10_000)));
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
