import type { Gauge, Registry } from 'prom-client';
import type { Logger } from '../log';
import type { QueueDepth, StoreFigures } from '../store/store';
import { scrapedGauge } from './scraped-gauge';

export interface QueueSources {
	figures: Pick<StoreFigures, 'webhookQueue' | 'outboxQueue'>;
	/** Requests waiting for mail on this node now. */
	waiting: () => number;
	/** Websocket clients listening on this node now. */
	websocketSubscribers: () => number;
	log: Logger;
}

const STATES = ['due', 'scheduled', 'held'] as const;

/**
 * The queues, read at each scrape: the shared ones from the store (one query each; on several nodes every node reports
 * the same database-wide figures), this node's own from memory.
 */
export function registerQueueGauges(registry: Registry, sources: QueueSources): void {
	const byState = (read: (now: number) => Promise<QueueDepth>) => async (gauge: Gauge<'state'>) => {
		const depth = await read(Date.now());
		for (const state of STATES) gauge.set({ state }, depth[state]);
	};
	scrapedGauge(
		registry,
		{
			name: 'mailroom_webhook_deliveries_pending',
			help: 'Webhook deliveries still to make, by state: due now, scheduled for a retry, held by a node attempting them',
			labelNames: ['state'],
		},
		byState((now) => sources.figures.webhookQueue(now)),
		sources.log,
	);
	scrapedGauge(
		registry,
		{
			name: 'mailroom_outbox_entries',
			help: 'Outgoing messages with recipients still to deliver, by state: due now, scheduled for a retry, held by a node',
			labelNames: ['state'],
		},
		byState((now) => sources.figures.outboxQueue(now)),
		sources.log,
	);
	scrapedGauge(
		registry,
		{ name: 'mailroom_waiting_requests', help: 'Requests waiting for mail (wait-for-message) on this node' },
		(gauge) => gauge.set(sources.waiting()),
	);
	scrapedGauge(
		registry,
		{ name: 'mailroom_websocket_subscribers', help: 'Websocket clients listening for new mail on this node' },
		(gauge) => gauge.set(sources.websocketSubscribers()),
	);
}
