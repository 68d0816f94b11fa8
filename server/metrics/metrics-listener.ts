import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import type { Logger } from '../log';

/** Where Prometheus scrapes. */
export const METRICS_PATH = '/metrics';

/**
 * The metrics' own HTTP listener (--metrics-port): apart from the API, so it can stay on an address only the monitoring
 * reaches, without a key, rate limits or the API's logging. It answers GET (and HEAD) /metrics in Prometheus's text
 * format and nothing else.
 */
export class MetricsListener {
	private readonly server: Server;

	constructor(registry: Registry, log: Logger) {
		this.server = createServer((request, response) => {
			const path = (request.url ?? '').split('?')[0];
			if (path !== METRICS_PATH) {
				response.writeHead(404, { 'content-type': 'text/plain' }).end(`Not found: try ${METRICS_PATH}\n`);
				return;
			}
			if (request.method !== 'GET' && request.method !== 'HEAD') {
				response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('Method not allowed\n');
				return;
			}
			registry.metrics().then(
				(text) => response.writeHead(200, { 'content-type': registry.contentType }).end(request.method === 'HEAD' ? undefined : text),
				(err: Error) => {
					log.error({ err }, 'the metrics could not be collected');
					response.writeHead(500, { 'content-type': 'text/plain' }).end('The metrics could not be collected\n');
				},
			);
		});
	}

	/** Resolves with the port bound (port 0: a free one). */
	listen(port: number, host: string): Promise<number> {
		return new Promise((resolve, reject) => {
			this.server.once('error', reject);
			this.server.listen(port, host, () => {
				this.server.off('error', reject);
				resolve((this.server.address() as { port: number }).port);
			});
		});
	}

	/** Stops listening and ends the connections a scraper keeps open (a scrape in progress is cut: the next one goes elsewhere). */
	close(): Promise<void> {
		if (!this.server.listening) return Promise.resolve();
		const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
		this.server.closeAllConnections();
		return closed;
	}
}
