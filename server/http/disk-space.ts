import { stat, statfs } from 'node:fs/promises';
import { describeSize } from '../config/settings';
import { DISK_FAILURE_MEMORY_MS } from '../schemas/health';
import { isOutOfSpace } from '../store/out-of-space';
import { SharedCheck } from './shared-check';

export interface DiskSpaceOptions {
	/** The folders this node writes mail into: the data folder (SQLite's database) and the spool of large messages. */
	folders: string[];
	/** The room one message may need: --max-message-size. */
	needed: number;
	/**
	 * How long a write that failed for lack of space counts, unless mail is stored meanwhile (default 10 s: a balancer asking
	 * every 5 s sees it twice and takes the node out).
	 */
	failureMemoryMs?: number;
}

/** How long a measure of the folders serves the checks after it, as for the store. */
const REUSE_MS = 1000;

/**
 * Whether this node can store mail for lack of disk space, for /readyz. Two signs: a folder it writes has less free space than
 * one message of the largest size (measured with statfs at most about once a second), and a write of mail that failed for lack
 * of space (ENOSPC, SQLITE_FULL, PostgreSQL's disk_full, whose disk this node cannot measure) within the last seconds. Both
 * pass by themselves once space is freed: the next measure finds it, and the failure is forgotten once mail is stored again
 * or its time is up.
 */
export class DiskSpace {
	private readonly measure = new SharedCheck(() => this.measureFolders(), REUSE_MS);
	private failure?: { at: number; reason: string; what: string };

	constructor(private readonly options: DiskSpaceOptions) {}

	/** A message (or, `what` says, another write) could not be stored: remembered when it was for lack of space. */
	failed(err: Error, what = 'storing a message'): void {
		if (!isOutOfSpace(err)) return;
		// The message names the code for a file system's error (ENOSPC: no space left…), not for SQLite's or PostgreSQL's.
		const { code } = err as Error & { code: string };
		this.failure = { at: Date.now(), reason: err.message.startsWith(code) ? err.message : `${code}: ${err.message}`, what };
	}

	/** A message was stored: there was room for it. */
	stored(): void {
		this.failure = undefined;
	}

	/** What keeps this node from storing mail for lack of space, for a person; empty when nothing does. */
	async problems(): Promise<string[]> {
		const problems = [...(await this.measure.answer())];
		const memory = this.options.failureMemoryMs ?? DISK_FAILURE_MEMORY_MS;
		if (this.failure && Date.now() - this.failure.at < memory) {
			const ago = Math.round((Date.now() - this.failure.at) / 1000);
			problems.push(`${this.failure.what} failed for lack of space ${ago} s ago: ${this.failure.reason}`);
		}
		return problems;
	}

	/** The folders with less room than one message, each disk once (named by the first of its folders). */
	private async measureFolders(): Promise<string[]> {
		const problems: string[] = [];
		const measured = new Set<number>();
		for (const folder of this.options.folders) {
			try {
				const { dev } = await stat(folder);
				if (measured.has(dev)) continue;
				measured.add(dev);
				const { bavail, bsize } = await statfs(folder);
				const free = bavail * bsize;
				if (free < this.options.needed)
					problems.push(
						`the disk of ${folder} has ${describeSize(free)} free, less than one message of the largest size ` +
							`(${describeSize(this.options.needed)}): mail may be refused with 451 until space is freed`,
					);
			} catch (err) {
				problems.push(`the free space of ${folder} could not be measured: ${(err as Error).message}`);
			}
		}
		return problems;
	}
}
