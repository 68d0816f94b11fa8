import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import nodemailer from 'nodemailer';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom, type TestMailroom } from '../../../helpers/mailroom';
import { expectError, sendMail } from '../../../helpers/messages';

/** What GET /api/inbox-search answers. */
interface SearchResult {
	messages: MessageRecord[];
}

/** 66 lines of 998 "a": a body of one repeated character, the worst case of a substring search (64 KiB of it searched). */
const REPEATED_BODY = `${'a'.repeat(998)}\n`.repeat(66);
const ATTACK_MESSAGES = 50;

/** The longest an event-loop turn took (ms) while `work` ran: the server shares this process's event loop. */
async function longestTurn<T>(work: () => Promise<T>): Promise<{ result: T; longestMs: number }> {
	const delay = monitorEventLoopDelay({ resolution: 5 });
	delay.enable();
	try {
		const result = await work();
		return { result, longestMs: delay.max / 1e6 };
	} finally {
		delay.disable();
	}
}

describe('searches an ordinary account can make hold the server for no more than a moment', () => {
	let server: TestMailroom;
	let account: { id: string; key: string };
	const search = (query: string) => server.api<SearchResult>(`/api/inbox-search?query=${encodeURIComponent(query)}`, { key: account.key });

	beforeAll(async () => {
		server = await startTestMailroom();
		account = await server.createAccount('attacker');
		await server.addresses.reserve('box@attack.test', account.id);
		// On one connection: a connection each would wait out as many greetings.
		const transport = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, ignoreTLS: true, pool: true });
		try {
			for (let i = 0; i < ATTACK_MESSAGES; i++) {
				await transport.sendMail({ from: 'a@sender.test', to: 'box@attack.test', subject: `repeated ${i}`, text: REPEATED_BODY });
			}
		} finally {
			transport.close();
		}
		await sendMail(server, { to: 'box@attack.test', subject: 'repeats', text: 'abcabcabc and more' });
		await sendMail(server, { to: 'box@attack.test', subject: 'scattered', text: 'abc, then bca, then cab: never in a row' });
	}, 120_000);
	afterAll(() => server.stop());

	it('answers a term of one repeated character over bodies of it without holding the event loop (it held it for seconds)', async () => {
		for (const length of [256, 50]) {
			const { result, longestMs } = await longestTurn(() => search('a'.repeat(length)));
			expect(result.status).toBe(200);
			// 66 lines of 998: no run of 256 "a"s is broken by a line end, but one of 998 + 1 is.
			expect(result.body.messages).toHaveLength(ATTACK_MESSAGES);
			expect(longestMs).toBeLessThan(1000);
		}
		const { result, longestMs } = await longestTurn(() => search(`"${'a'.repeat(250)}\n${'a'.repeat(5)}"`));
		expect(result.body.messages).toHaveLength(ATTACK_MESSAGES);
		expect(longestMs).toBeLessThan(1000);
	});

	it('finds a term that repeats a trigram only where it is, in a row (its trigrams alone are everywhere)', async () => {
		const { body } = await search('abcabca');
		expect(body.messages.map((message) => message.subject)).toEqual(['repeats']);
		// Excluded only where it is: "scattered" has its trigrams (and "re"), not the term.
		const { body: excluded } = await search('subject:re -abcabca');
		const others = excluded.messages.map((message) => message.subject).filter((subject) => !subject.startsWith('repeated '));
		expect(others).toEqual(['scattered']);
		expect(excluded.messages).toHaveLength(ATTACK_MESSAGES + 1);
	});

	it('refuses a word or phrase longer than 256 characters, naming the limit', async () => {
		expectError(await search('a'.repeat(257)), 400, /257 characters: at most 256/);
	});
});

describe('a search that takes longer than --search-timeout', () => {
	let server: TestMailroom;
	let account: { id: string; key: string };

	beforeAll(async () => {
		server = await startTestMailroom({ searchTimeout: 1 });
		account = await server.createAccount('patient');
		await server.addresses.reserve('slow@search.test', account.id);
		const transport = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, ignoreTLS: true, pool: true });
		try {
			for (let i = 0; i < ATTACK_MESSAGES; i++) {
				await transport.sendMail({ from: 'a@sender.test', to: 'slow@search.test', text: REPEATED_BODY });
			}
		} finally {
			transport.close();
		}
	}, 60_000);
	afterAll(() => server.stop());

	it('is answered 503 naming the limit', async () => {
		// "ab" is too short for the index, and in no body: each of the 3 MB is compared, which takes more than a millisecond.
		const searched = await server.api(`/api/inbox-search?query=ab`, { key: account.key });
		expectError(searched, 503, /^The search took longer than 0\.001 s, the most one may take \(--search-timeout\)$/);
	});
});
