import { closeSync, fdatasync, openSync } from 'node:fs';

/**
 * Makes committed WAL frames survive power loss without blocking the event loop.
 *
 * The database runs with synchronous=NORMAL: commits write the WAL but do not fsync it
 * (durable against a process crash), while checkpoints still sync. Before acknowledging
 * anything that must also survive an OS crash, callers await `sync()`, which resolves after
 * an fdatasync of the WAL that started after the call. The fdatasync runs on libuv's thread
 * pool, and every caller waiting at the same time shares one: this is the group commit.
 */
export class WalSync {
	private readonly fd: number;
	private running: Promise<void> | null = null;
	private next: Promise<void> | null = null;

	constructor(walPath: string) {
		this.fd = openSync(walPath, 'r');
	}

	sync(): Promise<void> {
		// A sync already in progress may have started before the caller's commit: queue one after it.
		if (this.running) return (this.next ??= this.running.then(() => this.start()));
		return this.start();
	}

	close(): void {
		closeSync(this.fd);
	}

	private start(): Promise<void> {
		this.next = null;
		const run = new Promise<void>((resolve, reject) => fdatasync(this.fd, (err) => (err ? reject(err) : resolve())));
		this.running = run;
		run.then(
			() => this.running === run && (this.running = null),
			() => this.running === run && (this.running = null),
		);
		return run;
	}
}
