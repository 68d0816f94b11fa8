import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { moved, scrape } from '../../helpers/metrics';
import { enc } from '../../helpers/messages';

/**
 * Real HTTP requests to the API, and how the metrics listener counts them: by route pattern, never by the URL a client
 * chose, so the number of series stays that of the routes however many addresses, ids or made-up paths are asked for.
 */

let server: TestMailroom;

beforeAll(async () => {
	server = await startTestMailroom({ metricsPort: 0 });
});
afterAll(() => server.stop());

const requests = (route: string, status: number, method = 'GET') =>
	['mailroom_http_requests_total', { method, route, status: String(status) }] as const;

describe('HTTP metrics', () => {
	it('count requests to one route under its pattern, whatever its parameters, by status, with their time', async () => {
		const before = await scrape(server.metricsUrl);
		const addresses = ['qx1-reader@counted.test', 'qx2-reader@counted.test', 'qx3-reader@counted.test'];
		for (const address of addresses) expect((await server.api(`/api/addresses/${enc(address)}/messages`)).status).toBe(200);
		expect((await server.api(`/api/addresses/${enc(addresses[0])}/messages`, { key: 'mr_no-such-key' })).status).toBe(401);
		const after = await scrape(server.metricsUrl);

		const route = '/api/addresses/:email/messages';
		expect(moved(before, after, ...requests(route, 200))).toBe(3);
		expect(moved(before, after, ...requests(route, 401))).toBe(1);
		expect(moved(before, after, 'mailroom_http_request_duration_seconds_count', { method: 'GET', route })).toBe(4);
		for (const address of addresses) expect(after.text).not.toContain(address.split('@')[0]);
	});

	it('count requests that match no route under one label, unmatched, never their paths', async () => {
		const before = await scrape(server.metricsUrl);
		const paths = ['/no/such/path-a', '/no/such/path-b', '/api/nothing-here-c'];
		for (const path of paths) expect((await server.api(path)).status).toBe(404);
		expect((await server.api('/livez', { method: 'DELETE' })).status).toBe(404);
		const after = await scrape(server.metricsUrl);

		expect(moved(before, after, ...requests('unmatched', 404))).toBe(paths.length);
		expect(moved(before, after, ...requests('unmatched', 404, 'DELETE'))).toBe(1);
		for (const made of ['path-a', 'path-b', 'nothing-here-c']) expect(after.text).not.toContain(made);
		const routes = new Set(
			after.samples.filter((sample) => sample.name === 'mailroom_http_requests_total').map((sample) => sample.labels.route),
		);
		expect([...routes].filter((route) => !route.startsWith('/') && route !== 'unmatched')).toEqual([]);
	});

	it('count a request whose route exists but whose thing does not under the route, with its 404', async () => {
		const before = await scrape(server.metricsUrl);
		expect((await server.api(`/api/addresses/${enc('nobody@counted.test')}/messages/no-such-id`)).status).toBe(404);
		const after = await scrape(server.metricsUrl);
		expect(moved(before, after, ...requests('/api/addresses/:email/messages/:messageId', 404))).toBe(1);
		expect(moved(before, after, ...requests('unmatched', 404))).toBe(0);
	});
});
