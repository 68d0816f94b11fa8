import type { Ingest } from '../ingest/ingest';
import type { MessageRecord } from '../schemas/message';
import type { MessageFilter } from '../schemas/wait-for';
import type { MessageMatcher } from '../store/store';

/** Most requests that may wait for mail at once, all callers together (each holds a connection open). */
export const MAX_WAITERS = 2000;
/** Most one caller (an API key, or an IP without one) may have waiting at once, so one cannot take every place. */
export const MAX_WAITERS_PER_CALLER = 500;

export interface WaitRequest {
	inbox: string;
	/** Only a message received at or after this time (epoch ms) answers. */
	since: number;
	filter: MessageFilter;
	/** ms */
	timeout: number;
	/** Who is asking (see callerOf), for MAX_WAITERS_PER_CALLER. */
	caller: string;
}

/** How a wait ended. */
export type WaitOutcome =
	| { kind: 'found'; message: MessageRecord }
	| { kind: 'timeout' }
	/** The client went away. */
	| { kind: 'gone' }
	/** The server is shutting down. */
	| { kind: 'closing' }
	/** Refused at once: as many are waiting as the limit allows, in all or of this caller. */
	| { kind: 'full'; of: 'server' | 'caller'; limit: number }
	| { kind: 'failed'; error: unknown };

interface Waiter extends WaitRequest {
	/** Whether the store has answered its first look (at everything since `since`); until then each look starts there. */
	lookedFromSince: boolean;
	settle(outcome: WaitOutcome): void;
}

/**
 * Requests waiting for mail, each answered by the oldest message of its inbox since its `since` that passes its filter.
 * Nothing polls: mail already stored is looked up once, and each message stored afterwards wakes only the waiters of
 * its inbox (the Ingest `stored` event), which look it up with the same matcher. A waiter ends when it is answered,
 * times out, its client goes away (its AbortSignal), or the server shuts down.
 */
export class MailWaiters {
	private readonly byInbox = new Map<string, Set<Waiter>>();
	private readonly ofCaller = new Map<string, number>();
	private count = 0;
	private closed = false;
	// On the next turn of the event loop, once the message's SMTP reply is written: answering many waiters does not hold it back.
	private readonly onStored = (records: MessageRecord[]) => setImmediate(() => this.wake(records));

	constructor(
		private readonly ingest: Ingest,
		private readonly matcher: MessageMatcher,
		private readonly limits = { total: MAX_WAITERS, perCaller: MAX_WAITERS_PER_CALLER },
	) {
		ingest.on('stored', this.onStored);
	}

	/** How many requests are waiting now. */
	get size(): number {
		return this.count;
	}

	/** Waits for a message as `request` asks; `gone` aborts when the client goes away. Never rejects. */
	wait(request: WaitRequest, gone: AbortSignal): Promise<WaitOutcome> {
		if (this.closed) return Promise.resolve({ kind: 'closing' });
		if (this.count >= this.limits.total) return Promise.resolve({ kind: 'full', of: 'server', limit: this.limits.total });
		if ((this.ofCaller.get(request.caller) ?? 0) >= this.limits.perCaller)
			return Promise.resolve({ kind: 'full', of: 'caller', limit: this.limits.perCaller });
		return new Promise((resolve) => {
			let settled = false;
			let timer: NodeJS.Timeout | undefined;
			const waiter: Waiter = {
				...request,
				lookedFromSince: false,
				settle: (outcome) => {
					if (settled) return;
					settled = true;
					clearTimeout(timer);
					gone.removeEventListener('abort', leave);
					this.remove(waiter);
					resolve(outcome);
				},
			};
			const leave = () => waiter.settle({ kind: 'gone' });
			gone.addEventListener('abort', leave);
			this.add(waiter);
			if (gone.aborted) return leave();
			// Registered before the store is asked, so a message stored in between wakes it: none is missed. The timeout counts
			// from the store's first answer, so `timeout=0` is that answer (or 408), however long the store takes to give it.
			void this.check(waiter, request.since).then(() => {
				waiter.lookedFromSince = true;
				if (!settled) timer = setTimeout(() => waiter.settle({ kind: 'timeout' }), request.timeout);
			});
		});
	}

	/** Every waiter looks again from its `since` (after mail may have gone unannounced: see Store.onAnnouncementsMissed). */
	recheckAll(): void {
		for (const waiters of this.byInbox.values()) for (const waiter of waiters) void this.check(waiter, waiter.since);
	}

	/** Ends every wait (503 for its client), so a shutdown is not held up by them. */
	close(): void {
		this.closed = true;
		this.ingest.off('stored', this.onStored);
		for (const waiters of [...this.byInbox.values()]) for (const waiter of [...waiters]) waiter.settle({ kind: 'closing' });
	}

	/**
	 * New records wake the waiters of their inboxes only. Records of an inbox are stored in increasing `received`
	 * order and each waiter has looked at what came before, so it looks from the earliest new one on.
	 */
	private wake(records: MessageRecord[]): void {
		const earliest = new Map<string, number>();
		for (const record of records) {
			if (!this.byInbox.has(record.inbox)) continue;
			const received = Date.parse(record.received);
			earliest.set(record.inbox, Math.min(received, earliest.get(record.inbox) ?? received));
		}
		for (const [inbox, received] of earliest) {
			// Waiters asking the same (most often: no) filter from the same time get the same answer: it is looked up once.
			const answers = new Map<string, Promise<MessageRecord | undefined>>();
			const lookUp = (from: number, filter: MessageFilter) => {
				const question = JSON.stringify([from, filter.from, filter.subject, filter.text]);
				if (!answers.has(question)) answers.set(question, this.matcher.oldestMatching(inbox, from, filter));
				return answers.get(question)!;
			};
			for (const waiter of [...this.byInbox.get(inbox)!]) {
				// A first look still under way may not see what just came, nor be the oldest: look from `since` again.
				void this.check(waiter, waiter.lookedFromSince ? Math.max(waiter.since, received) : waiter.since, lookUp);
			}
		}
	}

	/** Answers the waiter when a message received at or after `from` passes its filter. */
	private async check(
		waiter: Waiter,
		from: number,
		lookUp = (since: number, filter: MessageFilter) => this.matcher.oldestMatching(waiter.inbox, since, filter),
	): Promise<void> {
		try {
			const message = await lookUp(from, waiter.filter);
			if (message) waiter.settle({ kind: 'found', message });
		} catch (error) {
			waiter.settle({ kind: 'failed', error });
		}
	}

	private add(waiter: Waiter): void {
		let waiters = this.byInbox.get(waiter.inbox);
		if (!waiters) this.byInbox.set(waiter.inbox, (waiters = new Set()));
		waiters.add(waiter);
		this.ofCaller.set(waiter.caller, (this.ofCaller.get(waiter.caller) ?? 0) + 1);
		this.count++;
	}

	private remove(waiter: Waiter): void {
		const waiters = this.byInbox.get(waiter.inbox)!;
		waiters.delete(waiter);
		if (waiters.size === 0) this.byInbox.delete(waiter.inbox);
		const ofCaller = this.ofCaller.get(waiter.caller)! - 1;
		if (ofCaller === 0) this.ofCaller.delete(waiter.caller);
		else this.ofCaller.set(waiter.caller, ofCaller);
		this.count--;
	}
}
