import { Registry, collectDefaultMetrics } from 'prom-client';
import { SmtpMetrics } from './smtp-metrics';
import { IngestMetrics } from './ingest-metrics';
import { WebhookMetrics } from './webhook-metrics';
import { HttpMetrics } from './http-metrics';
import { SearchMetrics } from './search-metrics';

/**
 * The metrics of one server, in a registry of its own (not prom-client's global one), so servers sharing a process (the
 * tests, a host application) keep theirs apart. The parts of the server count into their instruments; the gauges read at
 * scrape time are added with registerQueueGauges and registerStoreGauges.
 */
export class Metrics {
	readonly registry = new Registry();
	readonly smtp = new SmtpMetrics(this.registry);
	readonly ingest = new IngestMetrics(this.registry);
	readonly webhooks = new WebhookMetrics(this.registry);
	readonly http = new HttpMetrics(this.registry);
	readonly searches = new SearchMetrics(this.registry);

	/**
	 * Adds the process's own figures (CPU, memory, event loop lag, garbage collection, handles) under their standard names.
	 * Only for a server that serves its metrics: prom-client's samplers of them run for the rest of the process.
	 */
	includeProcessMetrics(): void {
		collectDefaultMetrics({ register: this.registry });
	}
}
