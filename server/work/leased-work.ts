import type { Logger } from '../log';
import { UnrecordedWork } from './unrecorded-work';

/** setTimeout's longest wait. */
const MAX_TIMER = 2 ** 31 - 1;
/** After the store failed (the database unavailable), the queue looks again this much later. */
export const ERROR_BACKOFF_MS = 5000;

/** A queue of leased work in the store (the outbox, webhook deliveries), as its LeasedWork loop drives it. */
export interface WorkQueue {
	/** What the work is, for log lines ("the outbox", "webhook deliveries"). */
	readonly name: string;
	/**
	 * Claims what is due at `now` (leased to this node) and starts it; resolves with when to look again at the latest
	 * (undefined: only when asked to, or when started work ends and asks).
	 */
	take(now: number): Promise<number | undefined>;
	/** Extends the leases this node holds, while their work runs. */
	renewLeases(): Promise<void>;
	/** Gives up this node's leases: all of them (when stopping), or those of `ids`. */
	releaseLeases(ids?: string[]): Promise<void>;
}

/**
 * The loop of a node over one queue of leased work: one look at what is due at a time (a look asked for meanwhile runs
 * after it), a timer for the next due, the leases it holds renewed every third of their length, a look again shortly
 * after the store failed, and the leases of attempts whose outcome could not be recorded given back after a pause (see
 * UnrecordedWork). The queue decides what to claim and how to run it.
 */
export class LeasedWork {
	private readonly unrecorded = new UnrecordedWork(ERROR_BACKOFF_MS);
	private timer: NodeJS.Timeout | undefined;
	/** When the timer fires; Infinity when none is set. */
	private wakeAt = Infinity;
	private renewal: NodeJS.Timeout | undefined;
	private looking = false;
	private lookAgain = false;
	private closed = false;

	constructor(
		private readonly queue: WorkQueue,
		private readonly lease: number,
		private readonly log: Logger,
	) {}

	start(): void {
		this.renewal = setInterval(() => void this.renew(), this.lease / 3).unref();
		this.look();
	}

	/** Looks at what is due now. */
	look(): void {
		if (this.closed) return;
		if (this.looking) {
			this.lookAgain = true;
			return;
		}
		this.looking = true;
		void this.takeDue()
			.catch((err: Error) => {
				this.log.warn({ err: err.message }, `${this.queue.name} could not be read; trying again shortly`);
				this.wake(Date.now() + ERROR_BACKOFF_MS);
			})
			.finally(() => {
				this.looking = false;
				if (this.lookAgain) {
					this.lookAgain = false;
					this.look();
				}
			});
	}

	/** Looks at what is due at `at`, unless a look is due sooner already. */
	lookAt(at: number): void {
		this.wake(at);
	}

	/** An attempt at `id` whose outcome could not be recorded: its lease goes back after a pause. */
	unrecordedAttempt(id: string): void {
		this.unrecorded.add(id, Date.now());
		this.wake(this.unrecorded.next());
	}

	/** Stops looking and renewing; the leases stay held until releaseLeases (once the work under way has ended). */
	stop(): void {
		this.closed = true;
		clearTimeout(this.timer);
		clearInterval(this.renewal);
	}

	/** Gives up every lease this node holds (stopping): that work is due again at once for any node. */
	async releaseLeases(): Promise<void> {
		await this.queue.releaseLeases().catch((err: Error) => this.log.warn({ err: err.message }, `${this.queue.name}: leases not released`));
	}

	get stopped(): boolean {
		return this.closed;
	}

	private async takeDue(): Promise<void> {
		// One moment for the whole look: what fell due meanwhile would be neither claimed nor next.
		const now = Date.now();
		await this.unrecorded.giveBack(now, (ids) => this.queue.releaseLeases(ids));
		const next = await this.queue.take(now);
		this.wake(Math.min(next ?? Infinity, this.unrecorded.next()));
	}

	private wake(at: number): void {
		if (this.closed || at >= this.wakeAt || at === Infinity) return;
		clearTimeout(this.timer);
		this.wakeAt = at;
		this.timer = setTimeout(
			() => {
				this.wakeAt = Infinity;
				this.look();
			},
			Math.min(MAX_TIMER, Math.max(0, at - Date.now())),
		);
	}

	private async renew(): Promise<void> {
		await this.queue.renewLeases().catch((err: Error) => this.log.warn({ err: err.message }, `${this.queue.name}: leases not renewed`));
	}
}
