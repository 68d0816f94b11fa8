import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { reserveForwarding } from '../../helpers/addresses';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { scrape } from '../../helpers/metrics';
import { WebhookReceiver, waitFor } from '../../helpers/webhook-receiver';

/** Real webhook deliveries to a real receiver, and what the metrics listener says of their attempts and their queue. */

let server: TestMailroom;
let receiver: WebhookReceiver;
/** The receiver's answer, by the path of the address's webhook. */
const ANSWERS: Record<string, number> = { '/ok': 200, '/down': 500, '/gone': 410, '/slow': 200 };

beforeAll(async () => {
	// A retry a minute away, so a delivery that failed once stays scheduled while the test looks.
	server = await startTestMailroom({ metricsPort: 0, webhookRetrySchedule: [0, 60_000], webhookTimeout: 3000 });
	receiver = new WebhookReceiver();
	await receiver.listen();
	// /slow answers long after the attempt's timeout: the delivery is held meanwhile.
	receiver.reply = (request) => ({ status: ANSWERS[request.url], delayMs: request.url === '/slow' ? 60_000 : 0 });
	for (const path of Object.keys(ANSWERS)) {
		await reserveForwarding(server, server.adminKey, `hook${path.slice(1)}@metrics.test`, { webhook: `${receiver.url}${path}` });
	}
});
afterAll(async () => {
	await server.stop();
	await receiver.close();
});

const attempts = async (outcome: string) => (await scrape(server.metricsUrl)).value('mailroom_webhook_attempts_total', { outcome });
const attemptTimes = async (outcome: string) =>
	(await scrape(server.metricsUrl)).value('mailroom_webhook_attempt_duration_seconds_count', { outcome });
const pending = async () => {
	const scraped = await scrape(server.metricsUrl);
	const of = (state: string) => scraped.value('mailroom_webhook_deliveries_pending', { state });
	return { due: of('due'), scheduled: of('scheduled'), held: of('held') };
};

describe('webhook metrics', () => {
	it('count a delivered attempt, with its time, and leave nothing pending', async () => {
		expect(await attempts('delivered')).toBe(0);
		await server.send({ from: 'a@sender.test', to: 'hookok@metrics.test', text: 'delivered' });
		await waitFor(async () => (await attempts('delivered')) === 1, 'the delivered attempt counted');
		expect(await attemptTimes('delivered')).toBe(1);
		await waitFor(async () => (await pending()).held === 0, 'the delivery settled');
		expect(await pending()).toEqual({ due: 0, scheduled: 0, held: 0 });
	});

	it('count an attempt answered 500 as retrying, its delivery then scheduled for the retry', async () => {
		await server.send({ from: 'a@sender.test', to: 'hookdown@metrics.test', text: 'retried' });
		await waitFor(async () => (await attempts('retrying')) === 1, 'the attempt counted as retrying');
		await waitFor(async () => (await pending()).scheduled === 1, 'the delivery scheduled for its retry');
		expect(await pending()).toEqual({ due: 0, scheduled: 1, held: 0 });
		expect(receiver.requests.filter((request) => request.url === '/down')).toHaveLength(1);
	});

	it('count an attempt answered 410 as failed, at once', async () => {
		await server.send({ from: 'a@sender.test', to: 'hookgone@metrics.test', text: 'failed' });
		await waitFor(async () => (await attempts('failed')) === 1, 'the attempt counted as failed');
		expect(await attemptTimes('failed')).toBe(1);
		// The earlier delivery still waits for its retry; this one left the queue.
		await waitFor(async () => (await pending()).held === 0, 'the delivery settled');
		expect(await pending()).toEqual({ due: 0, scheduled: 1, held: 0 });
		expect(await attempts('delivered')).toBe(1);
	});

	it('show a delivery being attempted as held, until its attempt times out and it is scheduled for a retry', async () => {
		const retried = (await attempts('retrying'))!;
		await server.send({ from: 'a@sender.test', to: 'hookslow@metrics.test', text: 'slow' });
		await waitFor(async () => (await pending()).held === 1, 'the delivery held while it is attempted');
		await waitFor(async () => (await attempts('retrying')) === retried + 1, 'the attempt timed out');
		await waitFor(async () => (await pending()).held === 0, 'the delivery settled');
		expect(await pending()).toEqual({ due: 0, scheduled: 2, held: 0 });
	});
});
