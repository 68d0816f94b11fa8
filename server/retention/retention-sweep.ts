import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { MessageDeletion, OutgoingStore, RetentionCandidates, Store } from '../store/store';
import type { Ingest } from '../ingest/ingest';
import type { MessageRecord } from '../schemas/message';
import type { Logger } from '../log';

/** Messages deleted per transaction: small enough that SMTP and HTTP never wait long for the database. */
const BATCH = 500;

export interface RetentionLimits {
	/** ms; 0 keeps messages forever. Sent messages are kept as long. */
	maxAge: number;
	/** Unstarred messages kept per inbox; 0 means no limit. */
	maxPerInbox: number;
	/** ms between sweeps. */
	interval: number;
}

export interface SweepResult {
	expired: number;
	overflow: number;
	/** Sent messages (GET /api/outgoing-messages) deleted for their age. */
	sent: number;
}

/**
 * Deletes old mail in the background: messages older than the maximum age, and the oldest of an inbox
 * beyond its maximum count; and sent messages older than the maximum age once their deliveries are settled.
 * Starred messages are never deleted. Everything goes through MessageDeletion,
 * so raw mail and attachment bytes go with the records (shared ones when their last message goes).
 */
export class RetentionSweep {
	private timer: NodeJS.Timeout | undefined;
	private running: Promise<SweepResult> | undefined;
	private stopped = false;
	/** Inboxes that received mail since the last sweep: only they can have grown past the limit. */
	private readonly touched = new Set<string>();
	/** The first sweep checks every inbox (the limit may have been lowered since the last run). */
	private checkedAll = false;
	private readonly onStored = (records: MessageRecord[]) => records.forEach((record) => this.touched.add(record.inbox));

	constructor(
		private readonly candidates: RetentionCandidates,
		private readonly deletion: MessageDeletion,
		private readonly outgoing: OutgoingStore,
		/** One node of a database sweeps at a time. */
		private readonly exclusive: Store['exclusive'],
		private readonly ingest: Ingest,
		private readonly limits: RetentionLimits,
		private readonly log: Logger,
	) {}

	start(): void {
		this.ingest.on('stored', this.onStored);
		this.timer = setInterval(() => void this.sweep(), this.limits.interval);
		this.timer.unref();
		void this.sweep();
	}

	/** Stops the timer and waits for a sweep in progress, which ends at its next batch. */
	async stop(): Promise<void> {
		this.stopped = true;
		clearInterval(this.timer);
		this.ingest.off('stored', this.onStored);
		await this.running;
	}

	/** Runs one sweep now (or joins the one running); resolves with what it deleted (nothing while another node sweeps). */
	sweep(now = Date.now()): Promise<SweepResult> {
		this.running ??= this.exclusive('retention-sweep', () => this.run(now))
			.then((result) => result ?? { expired: 0, overflow: 0, sent: 0 })
			.catch((err: Error) => {
				this.log.error({ err: err.message }, 'retention sweep failed');
				return { expired: 0, overflow: 0, sent: 0 };
			})
			.finally(() => (this.running = undefined));
		return this.running;
	}

	private async run(now: number): Promise<SweepResult> {
		const result = { expired: 0, overflow: 0, sent: 0 };
		if (this.limits.maxAge > 0) {
			result.expired = await this.deleteExpired(now - this.limits.maxAge);
			result.sent = await this.deleteSent(now - this.limits.maxAge);
		}
		if (this.limits.maxPerInbox > 0) result.overflow = await this.deleteOverflow();
		if (result.expired || result.overflow || result.sent) this.log.info(result, 'retention sweep deleted messages');
		return result;
	}

	/** Walks messages oldest first (seq follows arrival) and stops at the first one young enough to keep. */
	private async deleteExpired(cutoff: number): Promise<number> {
		let deleted = 0;
		let after = 0;
		while (!this.stopped) {
			const rows = await this.candidates.oldest(after, BATCH);
			const young = rows.findIndex((row) => row.received >= cutoff);
			const old = young === -1 ? rows : rows.slice(0, young);
			deleted += await this.deletion.deleteBySeq(old.filter((row) => row.savedBy === null).map((row) => row.seq));
			if (young !== -1 || rows.length < BATCH) break;
			after = rows[rows.length - 1].seq;
			await yieldToEventLoop();
		}
		return deleted;
	}

	/** Sent messages older than the cutoff whose deliveries are settled, oldest first. */
	private async deleteSent(cutoff: number): Promise<number> {
		const before = new Date(cutoff).toISOString();
		let deleted = 0;
		while (!this.stopped) {
			const batch = await this.outgoing.deleteSettledBefore(before, BATCH);
			deleted += batch;
			if (batch < BATCH) break;
			await yieldToEventLoop();
		}
		return deleted;
	}

	/** Trims the inboxes that got mail since the last sweep; the first sweep checks every inbox. */
	private async deleteOverflow(): Promise<number> {
		const inboxes = new Set(this.checkedAll ? [] : await this.candidates.inboxesOver(this.limits.maxPerInbox));
		this.checkedAll = true;
		for (const inbox of this.touched) inboxes.add(inbox);
		this.touched.clear();
		let deleted = 0;
		for (const inbox of inboxes) {
			while (!this.stopped) {
				const seqs = await this.candidates.beyond(inbox, this.limits.maxPerInbox, BATCH);
				deleted += await this.deletion.deleteBySeq(seqs);
				if (seqs.length < BATCH) break;
				await yieldToEventLoop();
			}
			if (this.stopped) break;
		}
		return deleted;
	}
}
