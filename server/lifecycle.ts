import type { Logger } from './log';

/** A started part of a whole (the server's store, its SMTP listener, …): how it stops. */
export interface Part {
	close(): unknown;
}

/**
 * The parts of a whole in the order they started. They close in reverse, each once every part started after it (which may
 * use it) has closed; a close that fails is logged and the others still run, so one broken part keeps nothing else open.
 */
export class Parts {
	private readonly started: { name: string; close: () => unknown }[] = [];
	private closing?: Promise<void>;

	constructor(private readonly log: Logger) {}

	/** Starts one part, whose close will run before the closes of every part started before it. */
	async start<P extends Part>(name: string, start: () => P | Promise<P>): Promise<P> {
		const part = await start();
		this.started.push({ name, close: () => part.close() });
		return part;
	}

	/** Closes every started part, the last started first (once, however often called); rejects with the first failure. */
	close(): Promise<void> {
		return (this.closing ??= this.closeAll());
	}

	private async closeAll(): Promise<void> {
		const failures: unknown[] = [];
		for (const { name, close } of [...this.started].reverse()) {
			try {
				await close();
			} catch (err) {
				this.log.error({ err }, `${name}: the close failed`);
				failures.push(err);
			}
		}
		if (failures.length) throw failures[0];
	}
}

/**
 * Runs `start`, which starts parts one after another through `parts`. Should it fail, the parts it started are closed before
 * its failure is passed on: nothing of a failed start (a port in use, say) lingers in the caller's process.
 */
export async function startParts<T>(log: Logger, start: (parts: Parts) => Promise<T>): Promise<T> {
	const parts = new Parts(log);
	try {
		return await start(parts);
	} catch (err) {
		// The closes' own failures are logged: the start's is the one to report.
		await parts.close().catch(() => undefined);
		throw err;
	}
}
