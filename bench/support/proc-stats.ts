import { readFileSync, readdirSync } from 'node:fs';

/** What a process uses, read from /proc (so the benchmarks run on Linux): memory, and CPU time (100 clock ticks a second). */

const TICK_MS = 10;

/** Resident and peak resident memory of a process, in MB. */
export function memoryOf(pid: number): { rssMb: number; peakMb: number } {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
	return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

/** The fields of /proc/pid/stat after the command name, or undefined when the process is gone. */
function statFields(pid: number): string[] | undefined {
	try {
		return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
	} catch {
		return undefined;
	}
}

/** CPU time (user + system, all threads) a process has used so far, in ms. */
export function cpuMsOf(pid: number): number {
	const fields = statFields(pid);
	// utime and stime are fields 14 and 15 of /proc/pid/stat.
	return fields ? (Number(fields[11]) + Number(fields[12])) * TICK_MS : 0;
}

/** The live descendants of a process (PostgreSQL's backends and helpers are children of its postmaster). */
function descendantsOf(pid: number): number[] {
	const children = new Map<number, number[]>();
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		const parent = Number(statFields(Number(entry))?.[1]);
		if (!children.has(parent)) children.set(parent, []);
		children.get(parent)!.push(Number(entry));
	}
	const found: number[] = [];
	for (let next = children.get(pid) ?? []; next.length; next = next.flatMap((child) => children.get(child) ?? [])) found.push(...next);
	return found;
}

/**
 * CPU time of a process and all its descendants so far, in ms: theirs, and (cutime, cstime) that of the children that
 * ended and were waited for (a PostgreSQL backend whose connection closed).
 */
export function treeCpuMsOf(pid: number): number {
	return [pid, ...descendantsOf(pid)].reduce((sum, member) => {
		const fields = statFields(member);
		return sum + (fields ? fields.slice(11, 15).reduce((ticks, field) => ticks + Number(field), 0) * TICK_MS : 0);
	}, 0);
}

/**
 * Proportional memory (PSS) of a process and its descendants, in MB: shared memory (PostgreSQL's shared buffers) counted
 * once across them, where adding their RSS would count it in each.
 */
export function treePssMbOf(pid: number): number {
	return [pid, ...descendantsOf(pid)].reduce((sum, member) => {
		try {
			const rollup = readFileSync(`/proc/${member}/smaps_rollup`, 'utf8');
			return sum + Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) / 1024;
		} catch {
			return sum;
		}
	}, 0);
}
