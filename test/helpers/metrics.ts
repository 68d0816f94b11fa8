import { expect } from '@jest/globals';

/** One sample of a scrape: a metric's name (with _bucket, _sum, _count for a histogram's), its labels and its value. */
export interface Sample {
	name: string;
	labels: Record<string, string>;
	value: number;
}

/** What one GET /metrics answered, read as Prometheus's text format (version 0.0.4) is written. */
export interface Scrape {
	text: string;
	samples: Sample[];
	/** The type each `# TYPE` line declares, by metric name. */
	types: Map<string, string>;
	/** The value of the one sample of `name` with exactly these labels, or undefined when there is none. */
	value(name: string, labels?: Record<string, string>): number | undefined;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Scrape {
	const samples: Sample[] = [];
	const types = new Map<string, string>();
	for (const line of text.split('\n')) {
		if (line === '' || line.startsWith('# HELP ')) continue;
		const type = /^# TYPE (\S+) (\S+)$/.exec(line);
		if (type) {
			types.set(type[1], type[2]);
			continue;
		}
		const sample = SAMPLE.exec(line);
		if (!sample) throw new Error(`not a line of the text format: ${line}`);
		const labels = Object.fromEntries([...(sample[2] ?? '').matchAll(LABEL)].map(([, name, value]) => [name, value]));
		samples.push({ name: sample[1], labels, value: Number(sample[3]) });
	}
	const sameLabels = (a: Record<string, string>, b: Record<string, string>) =>
		Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([name, value]) => a[name] === value);
	return {
		text,
		samples,
		types,
		value: (name, labels = {}) => samples.find((sample) => sample.name === name && sameLabels(sample.labels, labels))?.value,
	};
}

/** Scrapes a server's metrics listener (`metricsUrl`), as Prometheus does: no key. */
export async function scrape(metricsUrl: string | undefined): Promise<Scrape> {
	const response = await fetch(`${metricsUrl!}/metrics`);
	expect(response.status).toBe(200);
	expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
	return parseMetrics(await response.text());
}

/** How much each sample asked for moved between two scrapes (a sample missing from the first counts from 0). */
export function moved(before: Scrape, after: Scrape, name: string, labels?: Record<string, string>): number {
	return (after.value(name, labels) ?? 0) - (before.value(name, labels) ?? 0);
}
