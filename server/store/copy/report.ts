import type { CopyProgress, CopySummary } from '../copy-store';

const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Bytes in the largest unit that keeps a whole number before the point (decimal units, as disks are sold). */
function size(bytes: number): string {
	const [unit, scale] = (
		[
			['GB', 1e9],
			['MB', 1e6],
			['kB', 1e3],
		] as const
	).find(([, of]) => bytes >= of) ?? ['B', 1];
	return `${(bytes / scale).toFixed(scale === 1 ? 0 : 1)} ${unit}`;
}

/** A line of copy-store's progress: a table copied (or being copied), or the search index filled. */
export function describeProgress(step: CopyProgress): string {
	if (step.total === undefined) return `${step.table}: ${count(step.rows, 'entry', 'entries')} (${step.detail}) in ${seconds(step.ms)}`;
	if (!step.done) return `${step.table}: ${step.rows.toLocaleString('en-US')} of ${count(step.total, 'row')} so far`;
	return `${step.table}: ${count(step.rows, 'row')}, ${size(step.bytes)} in ${seconds(step.ms)}`;
}

/** copy-store's last words: what was copied, how fast, and what to do next. */
export function describeSummary(summary: CopySummary): string {
	const perSecond = (amount: number) => amount / Math.max(summary.ms / 1000, 0.001);
	return [
		`Copied ${count(summary.rows, 'row')} (${size(summary.bytes)}) from ${summary.from} into ${summary.to} in ${seconds(summary.ms)}:`,
		`${Math.round(perSecond(summary.rows)).toLocaleString('en-US')} rows/s, ${size(perSecond(summary.bytes))}/s.`,
		'Start the nodes with --database-url (or MAILROOM_DATABASE_URL) naming this database.',
	].join(' ');
}
