import { Gauge, type Registry } from 'prom-client';
import type { Logger } from '../log';

export interface GaugeDefinition<Label extends string> {
	name: string;
	help: string;
	labelNames?: readonly Label[];
}

/**
 * A gauge whose values are read when /metrics is scraped, so nothing is counted on the way of mail or requests. A read
 * that fails (the database away) leaves the gauge without values for that scrape: absent, not stale.
 */
export function scrapedGauge<Label extends string = string>(
	registry: Registry,
	definition: GaugeDefinition<Label>,
	read: (gauge: Gauge<Label>) => void | Promise<void>,
	log?: Logger,
): Gauge<Label> {
	return new Gauge<Label>({
		...definition,
		registers: [registry],
		async collect() {
			try {
				await read(this);
			} catch (err) {
				this.reset();
				log?.debug({ err: (err as Error).message, metric: definition.name }, 'a metric could not be read');
			}
		},
	});
}
