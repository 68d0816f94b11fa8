import { beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { findCodes } from 'mailroom-server/dist/parse/codes';
import { parseMessage } from 'mailroom-server/dist/parse/parse-message';
import { CRLF, FUZZ_RUNS } from '../../helpers/raw-messages';
import { CODE_MAILS, NON_CODE_MAILS, type NonCodeMail } from './codes-corpus';

/** The subject and text findCodes is given for a mail: a mail with only HTML is parsed as the server parses it. */
async function subjectAndText(mail: NonCodeMail): Promise<[string, string]> {
	if (mail.html === undefined) return [mail.subject, mail.text ?? ''];
	const raw = [
		'From: sender@example.test',
		'To: jane@example.test',
		`Subject: =?UTF-8?B?${Buffer.from(mail.subject).toString('base64')}?=`,
		'MIME-Version: 1.0',
		'Content-Type: text/html; charset=utf-8',
		'Content-Transfer-Encoding: 8bit',
		'',
		mail.html,
	].join(CRLF);
	const parsed = await parseMessage(Buffer.from(raw));
	expect(typeof parsed.text).toBe('string');
	return [parsed.subject, parsed.text as string];
}

describe('findCodes on mail of real services', () => {
	it.each(CODE_MAILS.map((mail) => [mail.name, mail] as const))('%s', async (_name, mail) => {
		expect(findCodes(...(await subjectAndText(mail)))).toEqual(mail.codes);
	});
});

describe('findCodes on mail without codes', () => {
	it.each(NON_CODE_MAILS.map((mail) => [mail.name, mail] as const))('%s', async (_name, mail) => {
		expect(findCodes(...(await subjectAndText(mail)))).toEqual([]);
	});
});

describe('findCodes, the order and number of codes', () => {
	it('ranks a code next to its code word before one alone on a line near a code word', () => {
		const text = 'Enter this code:\n\n482913\n\nOr use your backup code 7319 0264 instead.';
		expect(findCodes('Sign in', text)).toEqual(['73190264', '482913']);
	});

	it('lists a number alone on a line far from any code word only when no code stands next to one', () => {
		const farBelow = '\n\nThanks for signing up.\n\nWe are glad you are here.\n\nSee you soon.\n\n304915';
		expect(findCodes('Your verification code', `Hello!${farBelow}`)).toEqual(['304915']);
		expect(findCodes('Your verification code', `Your code is 482913.${farBelow}`)).toEqual(['482913']);
	});

	it('lists each code once, at most five, in the order of the mail', () => {
		const codes = ['11111111', '22222222', '33333333', '44444444', '55555555', '66666666', '77777777'];
		const text = codes.map((code) => `Code: ${code}`).join('\n');
		expect(findCodes('Your code: 22222222', text)).toEqual(['22222222', '11111111', '33333333', '44444444', '55555555']);
	});

	it(`lists only codes written in the mail, at most five and each once, whatever the mail (${FUZZ_RUNS} cases)`, () => {
		const piece = fc.constantFrom(
			'code',
			'Code:',
			'OTP',
			'is',
			'lautet',
			'your',
			' ',
			'  ',
			'\n',
			'\n\n',
			':',
			'-',
			'.',
			'#',
			'+49',
			'482913',
			'482',
			'913',
			'G-7XK2P9',
			'A1B2C3',
			'ABCDEF',
			'2024',
			'10:15',
			'€1,234.56',
			'order',
			'Nr.',
			'https://x.test/?c=4829',
			'code482913Expires',
			'x@y.test',
			'1 2 3 4 5',
			'Bestätigungscode',
			'código',
			'promo',
			'Meeting ID',
			'flight',
		);
		const mail = fc.array(piece, { maxLength: 40 }).map((pieces) => pieces.join(' '));
		fc.assert(
			fc.property(mail, mail, (subject, text) => {
				const codes = findCodes(subject, text);
				const written = `${subject} ${text}`.replace(/[\s-]/g, '');
				expect(codes.length).toBeLessThanOrEqual(5);
				expect(new Set(codes).size).toBe(codes.length);
				for (const code of codes) expect(written).toContain(code.replace(/-/g, ''));
			}),
			{ numRuns: FUZZ_RUNS },
		);
	});
});

describe('findCodes on large and hostile text', () => {
	const KB = 1024;
	const filled = (unit: string) => unit.repeat(Math.ceil((256 * KB) / unit.length)).slice(0, 256 * KB);
	const hostile: [string, string][] = [
		['digits without a space', filled('4829130617')],
		['digits spaced one by one', filled('4 ')],
		['letters and digits without a space', filled('a1B2c3D4e5')],
		['letters and digits in words', filled('A1B2C3 x9y8 482913 qwerty ')],
		['code words each with a code', filled('code 482913 is your code ')],
		['code words glued to codes', filled('code482913Expires ')],
		['codes alone on lines', filled('Your code:\n482913\n')],
		['empty lines', filled('\n')],
		['colons after letters', filled('a:')],
		['punctuation around digits', filled('"(482913)",.;!? ')],
	];

	/**
	 * The least time of three calls, in milliseconds of CPU: the time the work takes, whatever else the machine runs (on a
	 * busy one the wall clock shows up to three times as much, and a collection of the test's garbage may fall into one
	 * call). V8 compiles the code as it runs (see beforeAll), as it has in a running server.
	 */
	const bestTime = (read: () => unknown) =>
		Math.min(
			...[1, 2, 3].map(() => {
				const started = process.cpuUsage();
				read();
				const { user, system } = process.cpuUsage(started);
				return (user + system) / 1000;
			}),
		);

	beforeAll(() => {
		for (const [, text] of hostile) findCodes('Your code', text.slice(0, 16 * KB));
	});

	it.each(hostile)('reads 256 KB of %s in well under 100 ms', (_name, text) => {
		expect(bestTime(() => findCodes('Your code', text))).toBeLessThan(100);
	});

	it('reads no further than the first 256 KB of a text', () => {
		const text = `${filled('word ')}\nYour code is 482913`;
		expect(findCodes('Sign in', text)).toEqual([]);
		expect(findCodes('Sign in', text.slice(-40))).toEqual(['482913']);
		const long = text.repeat(4);
		expect(bestTime(() => findCodes('Sign in', long))).toBeLessThan(100);
	});
});
