/** Percentile of an ascending-sorted list (nearest rank). */
export function percentile(sorted: number[], p: number): number {
	if (sorted.length === 0) return NaN;
	return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function latencySummary(samplesMs: number[]): { p50: number; p95: number; p99: number; max: number } {
	const sorted = [...samplesMs].sort((a, b) => a - b);
	return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] };
}

export function printTable(title: string, header: string[], rows: (string | number)[][]): void {
	const cells = rows.map((row) => row.map((cell) => (typeof cell === 'number' ? formatNumber(cell) : cell)));
	const widths = header.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i].length)));
	console.log(`\n${title}`);
	console.log(header.map((h, i) => h.padEnd(widths[i])).join(' | '));
	console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
	for (const row of cells) console.log(row.map((cell, i) => cell.padEnd(widths[i])).join(' | '));
}

function formatNumber(n: number): string {
	if (!Number.isFinite(n)) return 'n/a';
	if (Number.isInteger(n)) return n.toLocaleString('en-US');
	return n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(n >= 10 ? 1 : 2);
}

/** Reads a positive number from the environment (benchmarks are tuned by env, not flags). */
export function envNumber(name: string, fallback: number): number {
	const value = Number(process.env[name]);
	return Number.isFinite(value) && value > 0 ? value : fallback;
}

/** The median of a list (the lower middle of an even one, as percentile's nearest rank). */
export const median = (values: number[]) => latencySummary(values).p50;

/** Several runs' figures as their median, with the lowest and the highest: "3,412 (3,298–3,530)"; n/a if any is missing. */
export function overRuns(values: number[]): string {
	if (values.length === 0 || values.some((value) => !Number.isFinite(value))) return 'n/a';
	return `${formatNumber(median(values))} (${formatNumber(Math.min(...values))}–${formatNumber(Math.max(...values))})`;
}
