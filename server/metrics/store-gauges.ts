import { Gauge, type Registry } from 'prom-client';
import type { Logger } from '../log';
import type { Store } from '../store/store';
import { scrapedGauge } from './scraped-gauge';

/** The store's engine (an info metric, always 1), its size on disk and the messages it holds, read at each scrape. */
export function registerStoreGauges(registry: Registry, store: Pick<Store, 'engine' | 'figures'>, log: Logger): void {
	new Gauge({
		name: 'mailroom_store_info',
		help: 'The engine of the store: sqlite, or postgres (shared by the nodes of one database); always 1',
		labelNames: ['engine'],
		registers: [registry],
	}).set({ engine: store.engine }, 1);
	scrapedGauge(
		registry,
		{
			name: 'mailroom_store_size_bytes',
			help: "Bytes the store takes on disk: SQLite's database file and WAL, or the PostgreSQL database (pg_database_size)",
		},
		async (gauge) => gauge.set(await store.figures.sizeBytes()),
		log,
	);
	scrapedGauge(
		registry,
		{
			name: 'mailroom_store_messages',
			help: "Message records stored (one per recipient inbox): exact on SQLite, PostgreSQL's estimate of live rows on PostgreSQL",
		},
		async (gauge) => gauge.set(await store.figures.messageCount()),
		log,
	);
}
