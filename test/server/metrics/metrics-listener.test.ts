import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { scrape } from '../../helpers/metrics';
import { accepts } from '../../helpers/ports';

/** The metrics' own listener (--metrics-port): served only when asked for, apart from the API, in Prometheus's text format. */

describe('the metrics listener', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom({ metricsPort: 0 });
	});
	afterAll(() => server.stop());

	it('listens on 127.0.0.1 by default and answers GET /metrics without a key', async () => {
		expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		const scraped = await scrape(server.metricsUrl);
		expect(scraped.types.get('mailroom_smtp_messages_accepted_total')).toBe('counter');
	});

	it("adds the process's own figures under their standard names", async () => {
		const { types } = await scrape(server.metricsUrl);
		expect(types.get('process_cpu_seconds_total')).toBe('counter');
		expect(types.get('process_resident_memory_bytes')).toBe('gauge');
		expect(types.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
	});

	it('answers HEAD without a body, other methods 405 and other paths 404', async () => {
		const head = await fetch(`${server.metricsUrl}/metrics`, { method: 'HEAD' });
		expect(head.status).toBe(200);
		expect(await head.text()).toBe('');
		const post = await fetch(`${server.metricsUrl}/metrics`, { method: 'POST' });
		expect(post.status).toBe(405);
		expect(post.headers.get('allow')).toBe('GET, HEAD');
		for (const path of ['/', '/api/me', '/metricsx', '/livez']) expect((await fetch(`${server.metricsUrl}${path}`)).status).toBe(404);
		expect((await fetch(`${server.metricsUrl}/metrics?name[]=x`)).status).toBe(200);
	});

	it('is not the API: the API port serves no /metrics', async () => {
		expect((await server.api('/metrics')).status).toBe(404);
	});

	it('documents every metric of Mailroom with its type in docs/operations.md, and only those', async () => {
		const documented = new Map(
			[...readFileSync(join(__dirname, '../../../docs/operations.md'), 'utf8').matchAll(/^\| `(mailroom_[a-z_]+)` \| (\w+) \|/gm)].map(
				([, name, type]) => [name, type],
			),
		);
		const served = new Map([...(await scrape(server.metricsUrl)).types].filter(([name]) => name.startsWith('mailroom_')));
		expect(documented).toEqual(served);
	});

	it('stops listening when the server stops', async () => {
		const other = await startTestMailroom({ metricsPort: 0 });
		const port = Number(new URL(other.metricsUrl!).port);
		expect(await accepts('127.0.0.1', port)).toBe(true);
		await other.stop();
		expect(await accepts('127.0.0.1', port)).toBe(false);
	});
});

describe('without --metrics-port', () => {
	it('serves no metrics anywhere', async () => {
		const server = await startTestMailroom();
		try {
			expect(server.metricsUrl).toBeUndefined();
			expect((await server.api('/metrics')).status).toBe(404);
		} finally {
			await server.stop();
		}
	});
});
