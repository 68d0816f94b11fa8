import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Readiness } from 'mailroom-server/dist/schemas/health';
import { startTestMailroom, type TestMailroom } from '../../../helpers/mailroom';
import { startOwnPostgres, type OwnPostgres } from '../../../helpers/postgres';
import { RawSmtp } from '../../../helpers/raw-smtp';
import { waitFor } from '../../../helpers/webhook-receiver';

/** GET /livez and GET /readyz through real HTTP: no key, never cached, 503 with the reasons when the node should get no traffic. */

const READY: Readiness = {
	ready: true,
	phase: 'running',
	checks: { store: 'ok', smtp: 'listening', http: 'listening' },
	problems: [],
};

/** The first 503 GET /readyz answers. */
const notReady = (server: TestMailroom) =>
	waitFor(async () => {
		const answer = await server.api<Readiness>('/readyz');
		return answer.status === 503 ? answer : undefined;
	}, 'readyz to answer 503');

describe('GET /livez and GET /readyz of a running server', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		// A low limit, so that a balancer asking often would run into it were the checks counted.
		server = await startTestMailroom({ rateLimitIp: 5 });
	});
	afterAll(() => server.stop());

	it('answer 200 without a key, not to be cached', async () => {
		const live = await server.api('/livez');
		expect(live).toMatchObject({ status: 200, body: { live: true } });
		expect(live.headers.get('cache-control')).toBe('no-store');
		const ready = await server.api('/readyz');
		expect(ready).toMatchObject({ status: 200, body: READY });
		expect(ready.headers.get('cache-control')).toBe('no-store');
	});

	it('are not rate limited, however often they are asked', async () => {
		for (let i = 0; i < 12; i++) {
			expect((await server.api('/livez')).status).toBe(200);
			expect((await server.api('/readyz')).status).toBe(200);
		}
		expect((await server.api('/api/addresses/a%40health.test/messages')).status).toBe(200);
	});
});

describe('GET /readyz during a shutdown', () => {
	it('answers 503, phase stopping, while an SMTP transaction finishes, and /livez still 200', async () => {
		const server = await startTestMailroom();
		const { client } = await RawSmtp.connect(server.smtpPort);
		let stopped: Promise<void> | undefined;
		try {
			// A transaction in progress holds the shutdown up (up to --shutdown-timeout), and the API with it.
			await client.envelope('a@sender.test', ['late@health.test']);
			stopped = server.stop();
			const ready = await notReady(server);
			expect(ready.body).toEqual({
				ready: false,
				phase: 'stopping',
				// The SMTP listener takes no new connections from the shutdown's start; the API answers until the transaction is done.
				checks: { store: 'unchecked', smtp: 'closed', http: 'listening' },
				problems: ['the server is shutting down', 'the SMTP listener is closed'],
			});
			expect(ready.headers.get('cache-control')).toBe('no-store');
			expect((await server.api('/livez')).status).toBe(200);
			client.write('Subject: late\r\n\r\nfinished during the shutdown\r\n.\r\n');
			expect(await client.reply()).toMatch(/^250 /);
		} finally {
			client.close();
			await (stopped ?? server.stop());
		}
	});
});

describe('GET /readyz when the store goes away (PostgreSQL)', () => {
	let postgres: OwnPostgres;
	let server: TestMailroom;
	beforeAll(async () => {
		postgres = await startOwnPostgres();
		server = await startTestMailroom({ databaseUrl: await postgres.newDatabase() });
	}, 60_000);
	afterAll(async () => {
		await server?.stop();
		await postgres?.stop();
	}, 60_000);

	it('answers 503 saying the store did not answer while the database is down, and 200 again once it is back', async () => {
		expect(await server.api('/readyz')).toMatchObject({ status: 200, body: READY });
		await postgres.halt();
		try {
			const away = await notReady(server);
			expect(away.body).toMatchObject({
				ready: false,
				phase: 'running',
				checks: { store: 'unavailable', smtp: 'listening', http: 'listening' },
				problems: [expect.stringMatching(/^the store did not answer/)],
			});
			expect((await server.api('/livez')).status).toBe(200);
		} finally {
			await postgres.resume();
		}
		await waitFor(async () => (await server.api('/readyz')).status === 200, 'readyz to answer 200 again', 20_000);
		expect((await server.api('/readyz')).body).toEqual(READY);
	}, 60_000);
});
