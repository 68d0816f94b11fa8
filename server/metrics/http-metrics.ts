import { Counter, Histogram, type Registry } from 'prom-client';

/** The route label of a request that matched no route (404): never its URL, which a client chooses. */
export const UNMATCHED_ROUTE = 'unmatched';
/** Seconds, up to the longest wait for mail (5 minutes). */
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** HTTP requests by route pattern (bounded: one value per route), method and status, and their time. */
export class HttpMetrics {
	private readonly requests: Counter<'method' | 'route' | 'status'>;
	private readonly seconds: Histogram<'method' | 'route'>;

	constructor(registry: Registry) {
		const registers = [registry];
		this.requests = new Counter({
			name: 'mailroom_http_requests_total',
			help: 'HTTP requests answered, by method, route pattern and status code',
			labelNames: ['method', 'route', 'status'],
			registers,
		});
		this.seconds = new Histogram({
			name: 'mailroom_http_request_duration_seconds',
			help: 'Time from the arrival of an HTTP request to the end of its answer, by method and route pattern',
			labelNames: ['method', 'route'],
			buckets: DURATION_BUCKETS,
			registers,
		});
	}

	/** A request answered: `route` is the pattern it matched (undefined for none), `ms` its time. */
	answered(method: string, route: string | undefined, status: number, ms: number): void {
		const labels = { method, route: route ?? UNMATCHED_ROUTE };
		this.requests.inc({ ...labels, status: String(status) });
		this.seconds.observe(labels, ms / 1000);
	}
}
