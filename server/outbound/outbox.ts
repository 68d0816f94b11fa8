import type { Ingest } from '../ingest/ingest';
import type { Recipient } from '../mail/incoming-mail';
import type { Logger } from '../log';
import { leaseOf, type Lease, type OutboxEntry, type OutgoingStore, type Outcome } from '../store/store';
import type { OutgoingRecord } from '../schemas/outgoing';
import { UnrecordedWork } from '../store/unrecorded-work';
import type { Relay } from './relay';

export interface OutboxOptions {
	store: OutgoingStore;
	ingest: Ingest;
	/** This node: the holder of the leases of the entries it attempts, for `lease` ms at a time (--work-lease). */
	node: string;
	lease: number;
	/** Absent when no relay is configured: relay recipients then wait (and retry) until one is. */
	relay?: Relay;
	/** The same mapping SMTP ingest uses from an address to the inbox holding its mail. */
	resolveRecipient: (address: string, domain: string) => Promise<Recipient>;
	/** Waits (ms) before retry 1, 2, ...; when used up, recipients still pending fail. */
	retryDelays: number[];
	log: Logger;
}

/** How many outbox entries are attempted at the same time. */
const PARALLEL_ATTEMPTS = 8;
/** setTimeout's longest wait. */
const MAX_TIMER = 2 ** 31 - 1;
/** After the store failed (the database unavailable), the outbox looks again this much later. */
const ERROR_BACKOFF_MS = 5000;

/** A copy in memory the parser workers read without copying. */
function sharedCopy(raw: Buffer): Buffer {
	const copy = Buffer.from(new SharedArrayBuffer(raw.length));
	raw.copy(copy);
	return copy;
}

/**
 * Delivers recorded outgoing mail: local recipients through ingest (like SMTP mail), others through the relay. Entries
 * live in the database, so pending deliveries survive a restart; temporary failures are retried on the configured
 * schedule. An entry is attempted by the node holding its lease: the one that recorded it, else any node once the lease
 * has run out (its holder stopped or died), so nodes sharing a database share the outbox.
 */
export class Outbox {
	private readonly running = new Set<Promise<unknown>>();
	private timer: NodeJS.Timeout | undefined;
	private renewal: NodeJS.Timeout | undefined;
	/** A look at what is due is under way, and another was asked for meanwhile. */
	private looking = false;
	private lookAgain = false;
	private closed = false;
	private readonly unsettled = new UnrecordedWork(ERROR_BACKOFF_MS);

	constructor(private readonly options: OutboxOptions) {
		// Forwards recorded with incoming mail (leased to this node) get their first attempt once that mail is durable.
		options.ingest.on('stored', (_records, { forwardIds }) => forwardIds.forEach((id) => void this.attempt(id)));
	}

	/** Picks up what is due: left by a previous run, or by a node that stopped. */
	start(): void {
		this.renewal = setInterval(() => void this.renewLeases(), this.options.lease / 3).unref();
		this.schedule();
	}

	/** Takes up what is due now (another node recorded forwards, or gave back the entries it held). */
	lookForWork(): void {
		this.schedule();
	}

	/** A lease of this node, for an entry it records and attempts at once. */
	lease(): Lease {
		return leaseOf(this.options.node, this.options.lease);
	}

	/** One attempt at every pending recipient of an entry this node holds (just recorded, or due). */
	attempt(id: string): Promise<OutgoingRecord | undefined> {
		const run = this.run(id).catch((err: Error) => {
			if (this.closed) return undefined;
			this.options.log.error({ err, id }, 'outgoing delivery attempt failed');
			this.unsettled.add(id, Date.now());
			return undefined;
		});
		this.running.add(run);
		void run.finally(() => {
			this.running.delete(run);
			this.schedule();
		});
		return run;
	}

	/** Stops retrying; waits up to `timeoutMs` for attempts in progress, then gives up this node's leases (cut-off ones run again). */
	async close(timeoutMs: number): Promise<void> {
		this.closed = true;
		clearTimeout(this.timer);
		clearInterval(this.renewal);
		let timeout: NodeJS.Timeout | undefined;
		await Promise.race([Promise.allSettled([...this.running]), new Promise((resolve) => (timeout = setTimeout(resolve, timeoutMs)))]);
		clearTimeout(timeout);
		this.options.relay?.close();
		await this.options.store
			.releaseLeases(this.options.node)
			.catch((err: Error) => this.options.log.warn({ err: err.message }, 'outbox leases not released'));
	}

	private async run(id: string): Promise<OutgoingRecord> {
		const { store, retryDelays } = this.options;
		const entry = await store.entry(id);
		if (!entry) throw new Error(`outbox entry ${id} is gone`);
		const pending = entry.record.recipients.filter((r) => r.status === 'queued');
		const local = pending.filter((r) => r.route === 'local').map((r) => r.address);
		const relayed = pending.filter((r) => r.route === 'relay').map((r) => r.address);
		const [localOutcomes, relayOutcomes] = await Promise.all([this.deliverLocally(entry, local), this.relay(entry, relayed)]);
		const attempts = entry.record.attempts;
		const retryAt = attempts < retryDelays.length ? Date.now() + retryDelays[attempts] : null;
		const record = await store.settle(id, new Map([...localOutcomes, ...relayOutcomes]), retryAt);
		if (record.status !== 'delivered')
			this.options.log.warn({ id, status: record.status, error: record.lastError }, 'outgoing mail not delivered yet');
		return record;
	}

	private async deliverLocally(entry: OutboxEntry, addresses: string[]): Promise<Map<string, Outcome>> {
		if (addresses.length === 0) return new Map();
		const raw = sharedCopy(entry.raw);
		let outcome: Outcome;
		try {
			const recipients = new Map<string, Recipient>();
			for (const address of addresses) {
				const recipient = await this.options.resolveRecipient(address, address.slice(address.lastIndexOf('@') + 1));
				recipients.set(recipient.inbox, recipient);
			}
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

	/** Takes up what is due while fewer than PARALLEL_ATTEMPTS run, and wakes up when the next entry is due, or within a lease. */
	private schedule(): void {
		if (this.closed) return;
		if (this.looking) {
			this.lookAgain = true;
			return;
		}
		this.looking = true;
		void this.lookForDue()
			.catch((err: Error) => {
				this.options.log.warn({ err: err.message }, 'the outbox could not read what is due; trying again shortly');
				this.wakeAt(Date.now() + ERROR_BACKOFF_MS);
			})
			.finally(() => {
				this.looking = false;
				if (this.lookAgain) {
					this.lookAgain = false;
					this.schedule();
				}
			});
	}

	private async lookForDue(): Promise<void> {
		const { store } = this.options;
		// One moment for both questions: what fell due between them would be neither claimed nor next (nextDue looks after
		// `now`), and would wait a whole lease on a database slower to answer than a short retry delay.
		const now = Date.now();
		await this.unsettled.giveBack(now, (ids) => store.releaseLeases(this.options.node, ids));
		const free = PARALLEL_ATTEMPTS - this.running.size;
		if (free > 0) for (const id of await store.claimDue(now, free, this.lease())) void this.attempt(id);
		if (this.running.size >= PARALLEL_ATTEMPTS) return; // each attempt that ends looks again
		const next = await store.nextDue(now);
		// Nothing tells this node of what other nodes record: looking again within a lease finds their entries before the
		// lease of one that dies runs out, so they are taken up then rather than never.
		this.wakeAt(Math.min(next ?? Infinity, Date.now() + this.options.lease, this.unsettled.next()));
	}

	private wakeAt(at: number): void {
		clearTimeout(this.timer);
		if (!this.closed) this.timer = setTimeout(() => this.schedule(), Math.min(MAX_TIMER, Math.max(0, at - Date.now())));
	}

	/** Keeps this node's leases while its attempts run (a relay may take minutes). */
	private async renewLeases(): Promise<void> {
		if (this.running.size === 0) return;
		await this.options.store
			.renewLeases(this.lease())
			.catch((err: Error) => this.options.log.warn({ err: err.message }, 'outbox leases not renewed'));
	}
}
