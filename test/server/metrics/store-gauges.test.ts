import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestMailroom, TEST_ENGINE, type TestMailroom } from '../../helpers/mailroom';
import { scrape } from '../../helpers/metrics';
import { waitFor } from '../../helpers/webhook-receiver';

/** What the store holds and takes, read by the metrics listener at each scrape, on either engine. */

let server: TestMailroom;

beforeAll(async () => {
	server = await startTestMailroom({ metricsPort: 0 });
});
afterAll(() => server.stop());

describe('store gauges', () => {
	it('name the engine of the store', async () => {
		expect((await scrape(server.metricsUrl)).value('mailroom_store_info', { engine: TEST_ENGINE })).toBe(1);
	});

	it('show the bytes the store takes on disk', async () => {
		expect((await scrape(server.metricsUrl)).value('mailroom_store_size_bytes')).toBeGreaterThan(0);
	});

	it('show the message records stored, one per recipient inbox', async () => {
		const count = async () => (await scrape(server.metricsUrl)).value('mailroom_store_messages');
		expect(await count()).toBe(0);
		await server.send({ from: 'a@sender.test', to: ['one@store.test', 'two@store.test'], text: 'twice' });
		await server.send({ from: 'a@sender.test', to: 'one@store.test', text: 'once' });
		// PostgreSQL's figure is its statistics' count of live rows, which its backends report within seconds.
		await waitFor(async () => (await count()) === 3, 'three records counted', 30_000);
	}, 40_000);
});
