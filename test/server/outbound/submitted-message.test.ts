import { describe, expect, it } from '@jest/globals';
import { SubmittedMessage } from 'mailroom-server/dist/outbound/submitted-message';
import { SendError } from 'mailroom-server/dist/outbound/send-error';

const CRLF = '\r\n';
const message = (...lines: string[]) => Buffer.from(lines.join(CRLF), 'latin1');
const SENT = new Date('2026-11-24T10:00:05.000Z');

/** The refusal reading `raw` gives: its status and message. */
function refusal(raw: Buffer): { statusCode: number; message: string } {
	try {
		SubmittedMessage.read(raw);
	} catch (err) {
		expect(err).toBeInstanceOf(SendError);
		return { statusCode: (err as SendError).statusCode, message: (err as SendError).message };
	}
	throw new Error('read without a refusal');
}

describe('SubmittedMessage', () => {
	it('reads the From, To, Cc and Subject as mailparser decodes them (folded, encoded, in any case)', () => {
		const read = SubmittedMessage.read(
			message(
				'from: "Smith, Ann" <ANN@Local.test>',
				'TO: bob@local.test,',
				'\tCarol <carol@remote.test>',
				'Cc: =?UTF-8?Q?D=C3=A9sir=C3=A9e?= <desiree@remote.test>',
				'Cc: second-cc@remote.test',
				'Subject: =?UTF-8?B?UsOpc3Vtw6k=?=',
				' and more',
				'',
				'body',
			),
		);
		expect(read.from).toEqual(['ann@local.test']);
		expect(read.subject).toBe('Résumé and more');
		expect(
			['bob@local.test', 'carol@remote.test', 'desiree@remote.test', 'second-cc@remote.test', 'eve@remote.test'].map((a) =>
				read.fieldOf(a),
			),
		).toEqual(['to', 'to', 'cc', 'cc', 'bcc']);
	});

	it('reads a NUL character of the Subject, raw or encoded, as U+FFFD (PostgreSQL text cannot hold it)', () => {
		expect(SubmittedMessage.read(message('From: ann@local.test', 'Subject: a\0b', '', 'body')).subject).toBe('a\uFFFDb');
		expect(SubmittedMessage.read(message('From: ann@local.test', 'Subject: =?UTF-8?Q?a=00b?=', '', 'body')).subject).toBe('a\uFFFDb');
	});

	it('sends the message byte for byte when it has a Message-ID and a Date, whatever their case', () => {
		const raw = Buffer.concat([
			message('From: ann@local.test', 'message-id: <x@y>', 'DATE: Tue, 24 Nov 2026 10:00:00 +0000', '', ''),
			Buffer.from([0xe9, 0x00, 0xff, 0x0d, 0x0a]),
		]);
		expect(SubmittedMessage.read(raw).asSent('<new@local.test>', SENT).equals(raw)).toBe(true);
	});

	it('adds a Message-ID and a Date (RFC 5322) in front when it has neither', () => {
		const raw = message('From: ann@local.test', 'Subject: s', '', 'body', '');
		expect(SubmittedMessage.read(raw).asSent('<id1@local.test>', SENT).toString()).toBe(
			`Message-ID: <id1@local.test>${CRLF}Date: Tue, 24 Nov 2026 10:00:05 +0000${CRLF}${raw.toString()}`,
		);
	});

	it('removes every Bcc header, folded ones whole, and nothing else', () => {
		const raw = message(
			'Message-ID: <x@y>',
			'Date: Tue, 24 Nov 2026 10:00:00 +0000',
			'Bcc: hidden@remote.test,',
			' other-hidden@remote.test',
			'From: ann@local.test',
			'BCC: third@remote.test',
			'X-Bcc-Note: kept',
			'',
			'Bcc: in the body, kept',
		);
		expect(SubmittedMessage.read(raw).asSent('<unused@x>', SENT).toString()).toBe(
			message(
				'Message-ID: <x@y>',
				'Date: Tue, 24 Nov 2026 10:00:00 +0000',
				'From: ann@local.test',
				'X-Bcc-Note: kept',
				'',
				'Bcc: in the body, kept',
			).toString(),
		);
	});

	it('reads a message that is all header, and one with bare LF line endings', () => {
		const headerOnly = SubmittedMessage.read(Buffer.from('From: ann@local.test\r\nSubject: no body'));
		expect([headerOnly.from, headerOnly.subject]).toEqual([['ann@local.test'], 'no body']);
		const lf = Buffer.from('From: ann@local.test\nBcc: x@remote.test\nSubject: lf\n\nbody\n');
		const read = SubmittedMessage.read(lf);
		expect(read.subject).toBe('lf');
		expect(read.asSent('<i@d>', SENT).toString()).toMatch(/\r\nFrom: ann@local\.test\nSubject: lf\n\nbody\n$/);
	});

	it('refuses a message without exactly one From header with a valid address (400)', () => {
		expect(refusal(message('To: bob@local.test', '', 'x'))).toEqual({
			statusCode: 400,
			message: 'The message has no From headers; it needs exactly one, naming its sender',
		});
		expect(refusal(message('', 'From: ann@local.test'))).toMatchObject({
			message: expect.stringMatching(/^The message has no From headers/),
		});
		expect(refusal(message('From: a@local.test', 'From: b@local.test', '', 'x'))).toMatchObject({
			message: 'The message has 2 From headers; it needs exactly one, naming its sender',
		});
		expect(refusal(message('From: Nobody', '', 'x'))).toEqual({
			statusCode: 400,
			message:
				'The From header "Nobody" is not a list of addresses as RFC 5322 writes them (a comma between addresses, a display name before <address>)',
		});
		expect(refusal(message('From: undisclosed-recipients:;', '', 'x'))).toEqual({
			statusCode: 400,
			message: 'The From header names no address',
		});
		expect(refusal(message('From: a@local.test', 'Sender: a@local.test', 'Sender: b@local.test', '', 'x'))).toEqual({
			statusCode: 400,
			message: 'The message has 2 Sender headers; it may have one',
		});
	});

	it('refuses a header over 1 MB, and address headers over 16 KB together (400)', () => {
		const huge = message('From: ann@local.test', `X-Big: ${'b'.repeat(1024 * 1024)}`, '', 'x');
		expect(refusal(huge)).toEqual({ statusCode: 400, message: "The message's header is larger than 1048576 bytes" });
		const manyAddresses = Array.from({ length: 1000 }, (_, i) => `r${i}@remote.test`).join(', ');
		expect(refusal(message('From: ann@local.test', `To: ${manyAddresses}`, '', 'x'))).toEqual({
			statusCode: 400,
			message: "The message's address headers (From, Sender, To, Cc, Resent-From, Resent-Sender) are longer than 16384 bytes together",
		});
	});
});
