import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import nodemailer from 'nodemailer';
import http from 'node:http';
import net from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom, type TestMailroom } from '../../../helpers/mailroom';
import { enc, expectError, sendMail } from '../../../helpers/messages';
import { scrape } from '../../../helpers/metrics';
import { waitFor } from '../../../helpers/webhook-receiver';

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

describe('a search whose client goes away', () => {
	let server: TestMailroom;
	let account: { id: string; key: string };
	/**
	 * 19 excluded pairs of letters that no message holds, then a pair that none holds either: each of the 500 records is
	 * compared with all 20, and nothing found.
	 */
	const SLOW_QUERY = `${[...'bcdefghijklmnopqrst'].map((letter) => `-${letter}${letter}`).join(' ')} zz`;
	const path = `/api/inbox-search?query=${enc(SLOW_QUERY)}`;
	/** The search metrics now: how many run, and how many ended for each reason. */
	const searches = async () => {
		const scraped = await scrape(server.metricsUrl);
		const ended = (reason: string) => scraped.value('mailroom_searches_ended_total', { reason }) ?? 0;
		return {
			running: scraped.value('mailroom_searches_running'),
			ended: { answered: ended('answered'), timeout: ended('timeout'), abandoned: ended('abandoned'), failed: ended('failed') },
		};
	};
	/** Waits until no search runs; how the searches ended by then. */
	const untilNoneRuns = () =>
		waitFor(async () => {
			const now = await searches();
			return now.running === 0 ? now.ended : undefined;
		}, 'no search to run');

	beforeAll(async () => {
		server = await startTestMailroom({ metricsPort: 0, searchTimeout: 60_000 });
		account = await server.createAccount('impatient');
		await server.domains.claim('gone.test', account.id);
		// 5 messages to 100 addresses each: 500 records of 64 KiB, each searched.
		const to = Array.from({ length: 100 }, (_, i) => `box${i}@gone.test`);
		const transport = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, ignoreTLS: true, pool: true });
		try {
			for (let i = 0; i < 5; i++) await transport.sendMail({ from: 'a@sender.test', to, text: REPEATED_BODY });
		} finally {
			transport.close();
		}
	}, 60_000);
	afterAll(() => server.stop());

	it('stops its work once the client closes the connection, and answers nothing', async () => {
		const request = http.request({ host: '127.0.0.1', port: server.httpPort, path, headers: { 'Service-Key': account.key } });
		const closed = new Promise((resolve) => request.on('error', resolve));
		request.end();
		await waitFor(async () => (await searches()).running === 1, 'the search to start');
		request.destroy();
		await closed;
		expect(await untilNoneRuns()).toEqual({ answered: 0, timeout: 0, abandoned: 1, failed: 0 });
	});

	it('does no work for a client that closed the connection as soon as it had sent the search', async () => {
		const { ended: before } = await searches();
		const socket = net.connect(server.httpPort, '127.0.0.1');
		socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nService-Key: ${account.key}\r\n\r\n`, () => socket.destroy());
		const total = (ended: typeof before) => Object.values(ended).reduce((sum, count) => sum + count);
		await waitFor(async () => total((await searches()).ended) > total(before), 'the search to end');
		const after = await untilNoneRuns();
		expect({ abandoned: after.abandoned - before.abandoned, answered: after.answered - before.answered }).toEqual({
			abandoned: 1,
			answered: 0,
		});
	});

	it('compares each of 500 bodies of one letter against 20 terms without holding the event loop more than a few ms at a time', async () => {
		// Each record read and folded once for all 20 terms, in batches that aim at 5 ms: a call a term, and batches that
		// grew 8x after a quick one, held it 86-106 ms at a time, 4-6 s in all, on a loaded machine (20-40 ms, 0.1-0.3 s now).
		// The least of three, so that a moment the machine was busy elsewhere is not counted.
		const turns: number[] = [];
		for (let run = 0; run < 3; run++) {
			const { result, longestMs } = await longestTurn(() => server.api<SearchResult>(path, { key: account.key }));
			expect(result.body.messages).toEqual([]);
			turns.push(longestMs);
		}
		expect(Math.min(...turns)).toBeLessThan(50);
	});
});
