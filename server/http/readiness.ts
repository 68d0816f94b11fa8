import { STORE_CHECK_TIMEOUT_MS, type Phase, type Readiness as ReadinessReport } from '../schemas/health';
import { SharedCheck } from './shared-check';

export interface ReadinessOptions {
	/** Resolves when the store answers a query (Store.ping). */
	ping: () => Promise<void>;
	/** Whether each listener accepts connections now. */
	listening: { smtp: () => boolean; http: () => boolean };
	/** What keeps this node from storing mail for lack of disk space (DiskSpace). */
	disk: { problems: () => Promise<string[]>; failed: (err: Error, what: string) => void };
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
	private readonly store: SharedCheck<StoreCheck>;

	constructor(private readonly options: ReadinessOptions) {
		this.store = new SharedCheck(
			() =>
				options.ping().then(
					(): StoreCheck => ({}),
					(err: Error) => ({ problem: `the store did not answer: ${err.message}` }),
				),
			REUSE_MS,
		);
	}

	/** Everything is up: the node may get traffic. */
	running(): void {
		this.phase = 'running';
	}

	/** A shutdown has begun: the node should get no new traffic, while what it has in hand finishes. */
	stopping(): void {
		this.phase = 'stopping';
	}

	/** A write of the API failed: one for lack of disk space makes the node not ready for a while (see DiskSpace). */
	writeFailed(err: Error): void {
		this.options.disk.failed(err, 'storing a change made through the API');
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
		const running = this.phase === 'running';
		const [store, disk] = running ? await Promise.all([this.checkStore(), this.options.disk.problems()]) : [undefined, undefined];
		if (store?.problem) problems.push(store.problem);
		if (disk) problems.push(...disk);
		return {
			ready: problems.length === 0,
			phase: this.phase,
			checks: {
				store: store ? (store.problem ? 'unavailable' : 'ok') : 'unchecked',
				disk: disk ? (disk.length ? 'full' : 'ok') : 'unchecked',
				smtp,
				http,
			},
			problems,
		};
	}

	/** The store's answer: the last one if it is recent, else a query shared with any asked meanwhile, waited for at most the timeout. */
	private async checkStore(): Promise<StoreCheck> {
		let timer: NodeJS.Timeout | undefined;
		const timeout = new Promise<StoreCheck>((resolve) => {
			timer = setTimeout(
				() => resolve({ problem: `the store did not answer within ${STORE_CHECK_TIMEOUT_MS / 1000} s` }),
				STORE_CHECK_TIMEOUT_MS,
			);
		});
		try {
			return await Promise.race([this.store.answer(), timeout]);
		} finally {
			clearTimeout(timer);
		}
	}
}
