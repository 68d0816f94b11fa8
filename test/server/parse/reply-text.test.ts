import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseMessage } from 'mailroom-server/dist/parse/parse-message';
import { MAX_REPLY_TEXT_CHARS, strippedReply, type StrippedReply } from 'mailroom-server/dist/parse/reply-text';
import { LANGUAGES, REPLY_CORPUS, type ReplyCase } from './reply-corpus';

/** A message with only an HTML part, base64-encoded as most clients send it. */
function htmlOnlyMessage(html: string): Buffer {
	const body = (
		Buffer.from(html)
			.toString('base64')
			.match(/.{1,76}/g) ?? []
	).join('\r\n');
	const header = [
		'From: Anna Lee <anna.lee@example.com>',
		'To: John Smith <john.smith@example.com>',
		'Subject: Re: Hello',
		'MIME-Version: 1.0',
		'Content-Type: text/html; charset=utf-8',
		'Content-Transfer-Encoding: base64',
	];
	return Buffer.from(`${header.join('\r\n')}\r\n\r\n${body}\r\n`);
}

/** The text Mailroom has of the case's message: its text part, or the text it makes of its HTML. */
async function textOf(reply: ReplyCase): Promise<string> {
	if (reply.text !== undefined) return reply.text;
	const { text } = await parseMessage(htmlOnlyMessage(reply.html));
	if (typeof text !== 'string') throw new Error('a small message has its text in memory');
	return text;
}

const caseName = (reply: ReplyCase) => `${reply.language}, ${reply.client}${reply.html === undefined ? '' : ' (HTML)'}: ${reply.name}`;

describe(`strippedReply on ${REPLY_CORPUS.length} replies as mail clients write them`, () => {
	const texts = new Map<ReplyCase, string>();
	const exact = new Map<ReplyCase, boolean>();

	beforeAll(async () => {
		for (const reply of REPLY_CORPUS) texts.set(reply, await textOf(reply));
	});

	it.each(REPLY_CORPUS.map((reply) => [caseName(reply), reply] as const))('%s', (_name, reply) => {
		const expected: StrippedReply = { strippedText: reply.strippedText, strippedSignature: reply.strippedSignature };
		const stripped = strippedReply(texts.get(reply)!);
		exact.set(reply, JSON.stringify(stripped) === JSON.stringify(expected));
		expect(stripped).toEqual(expected);
	});

	afterAll(() => {
		const share = (cases: readonly ReplyCase[]) => {
			const right = cases.filter((reply) => exact.get(reply)).length;
			return `${right}/${cases.length} (${((100 * right) / cases.length).toFixed(0)}%)`;
		};
		const by = (key: 'language' | 'client') => [...new Set(REPLY_CORPUS.map((reply) => reply[key]))];
		const lines = [
			`stripped exactly: ${share(REPLY_CORPUS)}`,
			...LANGUAGES.map((language) => `  ${language}: ${share(REPLY_CORPUS.filter((reply) => reply.language === language))}`),
			...by('client').map((client) => `  ${client}: ${share(REPLY_CORPUS.filter((reply) => reply.client === client))}`),
			`  HTML only: ${share(REPLY_CORPUS.filter((reply) => reply.html !== undefined))}`,
		];
		console.log(lines.join('\n'));
	});

	it('covers every language with Gmail, Outlook and Apple Mail or a phone', () => {
		for (const language of LANGUAGES.filter((language) => language !== 'other')) {
			const clients = new Set(REPLY_CORPUS.filter((reply) => reply.language === language).map((reply) => reply.client));
			expect([language, clients.has('Gmail web')]).toEqual([language, true]);
			expect([language, [...clients].some((client) => client.startsWith('Outlook'))]).toEqual([language, true]);
			expect([language, ['Apple Mail', 'iPhone', 'Android'].some((client) => clients.has(client as never))]).toEqual([language, true]);
		}
	});
});

describe('strippedReply on hostile text', () => {
	const K256 = 256 * 1024;
	const fill = (unit: string) => unit.repeat(Math.ceil(K256 / unit.length)).slice(0, K256);
	/** Each would keep email-reply-parser busy for seconds to hours if it read the whole text. */
	const hostile: [string, string][] = [
		['a 256 KB line of one character', fill('a')],
		['a 256 KB line of spaces', fill(' ')],
		['256 KB of line breaks', fill('\n')],
		['a 256 KB line of "x on at "', fill('x on at ')],
		['a 256 KB line of "On 1:11 x wrote:"', fill('On 1:11 x wrote:')],
		['256 KB of short lines', fill('hello there\n')],
		['lines ending in ":", each a question for the library', fill(`${'x on at '.repeat(30)}:\n\n`)],
		['Danish "skrev" lines', fill('abc. skrev x:\n')],
		['attributions above quotes', fill('On Mon, Jun 3, 2024 at 10:15 AM a@b.c wrote:\n> x\n')],
		['unknown headers above quotes', fill(`${'x on at '.repeat(30)}:\n> x\n`)],
		['From lines', fill('From: a <a@b.c>\n')],
		['signature lines', fill('Regards,\n')],
		['quoted lines', fill('> > quoted\n')],
		['dashes', fill('-')],
	];

	/**
	 * The processor time of the faster of two runs: what the work costs, not how long the test waited for a core
	 * on a busy machine. Backtracking that was not bounded would take seconds to years here, not a few milliseconds.
	 */
	function milliseconds(work: () => void): number {
		let fastest = Infinity;
		for (let run = 0; run < 2; run++) {
			const started = process.cpuUsage();
			work();
			const { user, system } = process.cpuUsage(started);
			fastest = Math.min(fastest, (user + system) / 1000);
		}
		return fastest;
	}

	it.each(hostile)('%s: stripped in well under 100 ms', (_name, text) => {
		// (Also compiles what is timed next.)
		expect(strippedReply(text).strippedText.length).toBeLessThanOrEqual(K256);
		expect(milliseconds(() => strippedReply(text))).toBeLessThan(100);
	});

	it('keeps a text without quote or signature whole, however long the line', () => {
		expect(strippedReply(fill('a'))).toEqual({ strippedText: fill('a'), strippedSignature: null });
		expect(strippedReply(fill('x on at ')).strippedText).toBe(fill('x on at ').trim());
	});

	it(`reads at most the first ${MAX_REPLY_TEXT_CHARS} characters`, () => {
		expect(strippedReply('b'.repeat(MAX_REPLY_TEXT_CHARS + 100)).strippedText).toBe('b'.repeat(MAX_REPLY_TEXT_CHARS));
	});

	it('gives an empty text for an empty message or one that only quotes', () => {
		expect(strippedReply('')).toEqual({ strippedText: '', strippedSignature: null });
		expect(strippedReply('> only a quote\n>\n')).toEqual({ strippedText: '', strippedSignature: null });
	});
});
