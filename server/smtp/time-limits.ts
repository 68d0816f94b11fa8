export type TimeLimit = 'session' | 'data';

/**
 * Bounds by time what one connection holds. The idle timeout (--smtp-socket-timeout) starts again with every byte, so a
 * client sending a byte every few seconds could keep a connection, and its slot, for ever: a handful of such hosts
 * would take every slot. So the whole session (--smtp-session-timeout) and the DATA of each message
 * (--smtp-data-timeout) have deadlines of their own, which nothing the client sends moves.
 */
export class TimeLimits {
	private readonly timers: Record<TimeLimit, Map<string, NodeJS.Timeout>> = { session: new Map(), data: new Map() };

	constructor(
		private readonly limits: Record<TimeLimit, number>,
		/** Called when a session reaches one of its limits. */
		private readonly reached: (sessionId: string, limit: TimeLimit) => void,
	) {}

	start(limit: TimeLimit, sessionId: string): void {
		this.stop(limit, sessionId);
		const timer = setTimeout(() => {
			this.timers[limit].delete(sessionId);
			this.reached(sessionId, limit);
		}, this.limits[limit]);
		this.timers[limit].set(sessionId, timer.unref());
	}

	stop(limit: TimeLimit, sessionId: string): void {
		clearTimeout(this.timers[limit].get(sessionId));
		this.timers[limit].delete(sessionId);
	}

	/** The connection closed: neither limit applies any more. */
	ended(sessionId: string): void {
		this.stop('session', sessionId);
		this.stop('data', sessionId);
	}

	/** How a limit is named in the reply that enforces it: "300 s". */
	describe(limit: TimeLimit): string {
		return `${Math.round(this.limits[limit] / 100) / 10} s`;
	}
}
