import type { Ingest } from '../ingest/ingest';
import type { Recipient } from '../mail/incoming-mail';
import type { Logger } from '../log';
import type { OutboxEntry, OutgoingStore, Outcome } from '../store/outgoing';
import type { OutgoingRecord } from '../schemas/outgoing';
import type { Relay } from './relay';

export interface OutboxOptions {
	store: OutgoingStore;
	ingest: Ingest;
	/** Absent when no relay is configured: relay recipients then wait (and retry) until one is. */
	relay?: Relay;
	/** The same mapping SMTP ingest uses from an address to the inbox holding its mail. */
	resolveRecipient: (address: string, domain: string) => Recipient;
	/** Waits (ms) before retry 1, 2, ...; when used up, recipients still pending fail. */
	retryDelays: number[];
	log: Logger;
}

/** How many outbox entries are attempted at the same time. */
const PARALLEL_ATTEMPTS = 8;
/** setTimeout's longest wait. */
const MAX_TIMER = 2 ** 31 - 1;

/** A copy in memory the parser workers read without copying. */
function sharedCopy(raw: Buffer): Buffer {
	const copy = Buffer.from(new SharedArrayBuffer(raw.length));
	raw.copy(copy);
	return copy;
}

/**
 * Delivers recorded outgoing mail: local recipients through ingest (like SMTP mail), others through
 * the relay. Entries live in the database, so pending deliveries survive a restart; temporary
 * failures are retried on the configured schedule.
 */
export class Outbox {
	private readonly running = new Set<Promise<unknown>>();
	private timer: NodeJS.Timeout | undefined;
	private closed = false;

	constructor(private readonly options: OutboxOptions) {
		// Forwards recorded with incoming mail get their first attempt once that mail is durable.
		options.ingest.on('stored', (_records, { forwardIds }) => forwardIds.forEach((id) => void this.attempt(id)));
	}

	/** Picks up what a previous run left in the outbox. */
	start(): void {
		this.options.store.releaseInFlight();
		this.schedule();
	}

	/** One attempt at every pending recipient of a claimed entry (just recorded, or due). */
	attempt(id: string): Promise<OutgoingRecord | undefined> {
		const run = this.run(id).catch((err: Error) => {
			if (!this.closed) this.options.log.error({ err, id }, 'outgoing delivery attempt failed');
			return undefined;
		});
		this.running.add(run);
		void run.finally(() => {
			this.running.delete(run);
			this.schedule();
		});
		return run;
	}

	/** Stops retrying; waits up to `timeoutMs` for attempts in progress (cut-off ones run again after a restart). */
	async close(timeoutMs: number): Promise<void> {
		this.closed = true;
		clearTimeout(this.timer);
		let timeout: NodeJS.Timeout | undefined;
		await Promise.race([Promise.allSettled([...this.running]), new Promise((resolve) => (timeout = setTimeout(resolve, timeoutMs)))]);
		clearTimeout(timeout);
		this.options.relay?.close();
	}

	private async run(id: string): Promise<OutgoingRecord> {
		const { store, retryDelays } = this.options;
		const entry = store.entry(id);
		if (!entry) throw new Error(`outbox entry ${id} is gone`);
		const pending = entry.record.recipients.filter((r) => r.status === 'queued');
		const local = pending.filter((r) => r.route === 'local').map((r) => r.address);
		const relayed = pending.filter((r) => r.route === 'relay').map((r) => r.address);
		const [localOutcomes, relayOutcomes] = await Promise.all([this.deliverLocally(entry, local), this.relay(entry, relayed)]);
		const attempts = entry.record.attempts;
		const retryAt = attempts < retryDelays.length ? Date.now() + retryDelays[attempts] : null;
		const record = store.settle(id, new Map([...localOutcomes, ...relayOutcomes]), retryAt);
		if (record.status !== 'delivered')
			this.options.log.warn({ id, status: record.status, error: record.lastError }, 'outgoing mail not delivered yet');
		return record;
	}

	private async deliverLocally(entry: OutboxEntry, addresses: string[]): Promise<Map<string, Outcome>> {
		if (addresses.length === 0) return new Map();
		const raw = sharedCopy(entry.raw);
		const recipients = new Map<string, Recipient>();
		for (const address of addresses) {
			const recipient = this.options.resolveRecipient(address, address.slice(address.lastIndexOf('@') + 1));
			recipients.set(recipient.inbox, recipient);
		}
		let outcome: Outcome;
		try {
			// The copies' transaction also marks these recipients delivered (localCopy).
			await this.options.ingest.store({
				raw,
				recipients: [...recipients.values()],
				ip: entry.ip,
				via: entry.via,
				rtls: false,
				localCopy: { outgoingId: entry.record._id, addresses },
			});
			outcome = { status: 'delivered' };
		} catch (err) {
			outcome = { status: 'temporary', error: `storing the local copy failed: ${(err as Error).message}` };
		}
		return new Map(addresses.map((address) => [address, outcome]));
	}

	private async relay(entry: OutboxEntry, addresses: string[]): Promise<Map<string, Outcome>> {
		if (addresses.length === 0) return new Map();
		if (!this.options.relay) {
			const outcome: Outcome = { status: 'temporary', error: 'no relay is configured (MAILROOM_RELAY_URL)' };
			return new Map(addresses.map((address) => [address, outcome]));
		}
		return this.options.relay.send(entry.raw, entry.record.from, addresses);
	}

	/** Wakes up when the next entry is due, while fewer than PARALLEL_ATTEMPTS run. */
	private schedule(): void {
		clearTimeout(this.timer);
		if (this.closed || this.running.size >= PARALLEL_ATTEMPTS) return;
		const next = this.options.store.nextDue();
		if (next === undefined) return;
		this.timer = setTimeout(() => this.runDue(), Math.min(MAX_TIMER, Math.max(0, next - Date.now())));
	}

	private runDue(): void {
		if (this.closed) return;
		const ids = this.options.store.claimDue(Date.now(), PARALLEL_ATTEMPTS - this.running.size);
		for (const id of ids) void this.attempt(id);
		this.schedule();
	}
}
