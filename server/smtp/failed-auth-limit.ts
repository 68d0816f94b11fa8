/** Failed AUTH attempts one client address may make in a window; then every AUTH from it is refused until the window ends. */
export const MAX_FAILED_AUTH = 10;
export const FAILED_AUTH_WINDOW_MS = 15 * 60_000;
/** Client addresses remembered at once; beyond it the oldest window is forgotten, so memory stays bounded under a flood. */
const MAX_TRACKED_CLIENTS = 10_000;

/**
 * Counts failed AUTH attempts per client address in fixed windows (the first failure starts one). API keys are far too
 * long to guess; this keeps a client that tries one key after another from costing a lookup each, and tells it to stop.
 */
export class FailedAuthLimit {
	/** By client address, in the order their windows started. */
	private readonly windows = new Map<string, { started: number; failures: number }>();

	constructor(
		private readonly max = MAX_FAILED_AUTH,
		private readonly windowMs = FAILED_AUTH_WINDOW_MS,
		private readonly now: () => number = Date.now,
	) {}

	/** Whether the address has used up its failures for now. */
	blocked(ip: string): boolean {
		return (this.current(ip)?.failures ?? 0) >= this.max;
	}

	failed(ip: string): void {
		const window = this.current(ip);
		if (window) {
			window.failures++;
			return;
		}
		if (this.windows.size >= MAX_TRACKED_CLIENTS) this.windows.delete(this.windows.keys().next().value!);
		this.windows.set(ip, { started: this.now(), failures: 1 });
	}

	/** The address's window, unless it has ended (then it is forgotten). */
	private current(ip: string) {
		const window = this.windows.get(ip);
		if (window && this.now() - window.started >= this.windowMs) {
			this.windows.delete(ip);
			return undefined;
		}
		return window;
	}
}
