import ipaddr from 'ipaddr.js';

/**
 * Failed AUTH attempts one client (an IPv4 address, an IPv6 /64) may make in a window; then every wrong key from it is
 * refused with 454 without counting, until the window ends. A right key still gets through: many users may share one
 * address (NAT, a proxy, a container gateway), and keys are far too long to guess.
 */
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

/**
 * The client a failure counts against: an IPv4 address as it is, an IPv6 address by its /64 (one host or site usually has
 * a whole /64, and could otherwise try from each of its addresses in turn).
 */
export function clientGroup(ip: string): string {
	if (!ipaddr.isValid(ip)) return ip;
	const parsed = ipaddr.process(ip);
	if (parsed.kind() === 'ipv4') return parsed.toString();
	const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4);
	return `${ipaddr.IPv6.parse(`${prefix.map((part) => part.toString(16)).join(':')}::`).toString()}/64`;
}
