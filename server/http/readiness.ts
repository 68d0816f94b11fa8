import { STORE_CHECK_TIMEOUT_MS, type Phase, type Readiness as ReadinessReport } from '../schemas/health';

export interface ReadinessOptions {
	/** Resolves when the store answers a query (Store.ping). */
	ping: () => Promise<void>;
	/** Whether each listener accepts connections now. */
	listening: { smtp: () => boolean; http: () => boolean };
}

/** How long a store check that settled serves the checks after it. */
const REUSE_MS = 1000;

type StoreCheck = { problem?: string };

/**
 * What GET /readyz reports: whether this node should get traffic. The composition root moves it through its phases
 * (starting, running, stopping); the store is asked at most once at a time and at most about once a second, however
 * often a load balancer (or anyone, since it needs no key) asks.
 */
export class Readiness {
	private phase: Phase = 'starting';
	private inFlight?: Promise<StoreCheck>;
	private settled?: { at: number; check: StoreCheck };

	constructor(private readonly options: ReadinessOptions) {}

	/** Everything is up: the node may get traffic. */
	running(): void {
		this.phase = 'running';
	}

	/** A shutdown has begun: the node should get no new traffic, while what it has in hand finishes. */
	stopping(): void {
		this.phase = 'stopping';
	}

	async report(): Promise<ReadinessReport> {
		const smtp = this.options.listening.smtp() ? 'listening' : 'closed';
		const http = this.options.listening.http() ? 'listening' : 'closed';
		const problems: string[] = [];
		if (this.phase === 'starting') problems.push('the server is starting');
		if (this.phase === 'stopping') problems.push('the server is shutting down');
		if (smtp === 'closed') problems.push('the SMTP listener is closed');
		if (http === 'closed') problems.push('the HTTP listener is closed');
		// While starting or stopping the answer is no anyway, and the store may be opening or closing.
		const store = this.phase === 'running' ? await this.checkStore() : undefined;
		if (store?.problem) problems.push(store.problem);
		return {
			ready: problems.length === 0,
			phase: this.phase,
			checks: { store: store ? (store.problem ? 'unavailable' : 'ok') : 'unchecked', smtp, http },
			problems,
		};
	}

	/** The store's answer: the last one if it is recent, else a query shared with any asked meanwhile, waited for at most the timeout. */
	private async checkStore(): Promise<StoreCheck> {
		if (this.settled && Date.now() - this.settled.at < REUSE_MS) return this.settled.check;
		if (!this.inFlight) {
			const query = this.options.ping().then(
				(): StoreCheck => ({}),
				(err: Error) => ({ problem: `the store did not answer: ${err.message}` }),
			);
			this.inFlight = query;
			void query.then((check) => {
				this.inFlight = undefined;
				this.settled = { at: Date.now(), check };
			});
		}
		const query = this.inFlight;
		let timer: NodeJS.Timeout | undefined;
		const timeout = new Promise<StoreCheck>((resolve) => {
			timer = setTimeout(
				() => resolve({ problem: `the store did not answer within ${STORE_CHECK_TIMEOUT_MS / 1000} s` }),
				STORE_CHECK_TIMEOUT_MS,
			);
		});
		try {
			return await Promise.race([query, timeout]);
		} finally {
			clearTimeout(timer);
		}
	}
}
