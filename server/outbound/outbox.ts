import { createReadStream, createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Ingest } from '../ingest/ingest';
import type { Recipient } from '../mail/incoming-mail';
import type { Logger } from '../log';
import { leaseOf, type Lease, type OutboxEntry, type OutgoingStore, type Outcome, type RecordedEvent } from '../store/store';
import type { OutgoingRecord } from '../schemas/outgoing';
import type { MessageSpool, RawMessage, SpooledBytes } from '../bytes/spooled-bytes';
import { storedPieces, type StoredBytes } from '../bytes/stored-bytes';
import { LeasedWork, type WorkQueue } from '../work/leased-work';
import type { Relay } from './relay';
import type { TestAddresses } from './test-addresses';
import type { OutgoingRecipient } from '../schemas/outgoing';

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
	/** Where a large local copy is written for ingest to parse in pieces, as large SMTP mail is. */
	spool: MessageSpool;
	/** What answers the addresses of --test-domain as a remote server would; absent without one. */
	testAddresses?: TestAddresses;
	/** Told of the delivery events each attempt recorded (for the websocket; their webhook deliveries are recorded with them). */
	onEvents: (events: RecordedEvent[]) => void;
	log: Logger;
}

/** How many outbox entries are attempted at the same time. */
const PARALLEL_ATTEMPTS = 8;

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
export class Outbox implements WorkQueue {
	readonly name = 'the outbox';
	private readonly running = new Set<Promise<unknown>>();
	private readonly work: LeasedWork;

	constructor(private readonly options: OutboxOptions) {
		this.work = new LeasedWork(this, options.lease, options.log);
		// Forwards recorded with incoming mail (leased to this node) get their first attempt once that mail is durable.
		options.ingest.on('stored', (_records, { forwardIds }) => forwardIds.forEach((id) => void this.attempt(id)));
	}

	/** Picks up what is due: left by a previous run, or by a node that stopped. */
	start(): void {
		this.work.start();
	}

	/** Takes up what is due now (another node recorded forwards, or gave back the entries it held). */
	lookForWork(): void {
		this.work.look();
	}

	/** A lease of this node, for an entry it records and attempts at once. */
	lease(): Lease {
		return leaseOf(this.options.node, this.options.lease);
	}

	/**
	 * One attempt at every pending recipient of an entry this node holds (just recorded, or due). `spooled`: the raw source
	 * the sender has in a spool file still (a large message it composed there, and removes once this attempt has ended),
	 * read from there rather than from the store.
	 */
	attempt(id: string, spooled?: SpooledBytes): Promise<OutgoingRecord | undefined> {
		const run = this.run(id, spooled).catch((err: Error) => {
			if (this.work.stopped) return undefined;
			this.options.log.error({ err, id }, 'outgoing delivery attempt failed');
			this.work.unrecordedAttempt(id);
			return undefined;
		});
		this.running.add(run);
		void run.finally(() => {
			this.running.delete(run);
			this.work.look();
		});
		return run;
	}

	/** Stops retrying; waits up to `timeoutMs` for attempts in progress, then gives up this node's leases (cut-off ones run again). */
	async close(timeoutMs: number): Promise<void> {
		this.work.stop();
		let timeout: NodeJS.Timeout | undefined;
		await Promise.race([Promise.allSettled([...this.running]), new Promise((resolve) => (timeout = setTimeout(resolve, timeoutMs)))]);
		clearTimeout(timeout);
		this.options.relay?.close();
		await this.work.releaseLeases();
	}

	/**
	 * Claims what is due while fewer than PARALLEL_ATTEMPTS run, and attempts it; looks again when the next entry is due,
	 * or within a lease: nothing tells this node of what other nodes record, and looking within a lease finds the entries
	 * of one that died before their lease runs out.
	 */
	async take(now: number): Promise<number | undefined> {
		const { store } = this.options;
		const free = PARALLEL_ATTEMPTS - this.running.size;
		if (free > 0) for (const id of await store.claimDue(now, free, this.lease())) void this.attempt(id);
		if (this.running.size >= PARALLEL_ATTEMPTS) return undefined; // each attempt that ends looks again
		return Math.min((await store.nextDue(now)) ?? Infinity, Date.now() + this.options.lease);
	}

	/** Keeps this node's leases while its attempts run (a relay may take minutes). */
	async renewLeases(): Promise<void> {
		if (this.running.size > 0) await this.options.store.renewLeases(this.lease());
	}

	releaseLeases(ids?: string[]): Promise<void> {
		return this.options.store.releaseLeases(this.options.node, ids);
	}

	private async run(id: string, spooled?: SpooledBytes): Promise<OutgoingRecord> {
		const { store, retryDelays, testAddresses } = this.options;
		const entry = await store.entry(id);
		if (!entry) throw new Error(`outbox entry ${id} is gone`);
		const pending = entry.record.recipients.filter((r) => r.status === 'queued');
		const local = pending.filter((r) => r.route === 'local').map((r) => r.address);
		const relayed = pending.filter((r) => r.route === 'relay');
		const tested = pending.filter((r) => r.route === 'test');
		const raw = spooled ?? entry.raw;
		const [localOutcomes, relayOutcomes] = await Promise.all([this.deliverLocally(entry, raw, local), this.relay(entry, raw, relayed)]);
		// A test address takes every message, as the remote server it plays would; what it does then comes back as a report.
		const testOutcomes = tested.map((r): [string, Outcome] => [r.address, { status: 'delivered' }]);
		const attempts = entry.record.attempts;
		const retryAt = attempts < retryDelays.length ? Date.now() + retryDelays[attempts] : null;
		const { record, events } = await store.settle(id, new Map([...localOutcomes, ...relayOutcomes, ...testOutcomes]), retryAt);
		if (events.length) this.options.onEvents(events);
		if (record.status === 'queued' || record.status === 'failed')
			this.options.log.warn({ id, status: record.status, error: record.lastError }, 'outgoing mail not delivered yet');
		for (const recipient of tested) void testAddresses?.answer(entry, recipient);
		return record;
	}

	private async deliverLocally(entry: OutboxEntry, raw: OutgoingRaw, addresses: string[]): Promise<Map<string, Outcome>> {
		if (addresses.length === 0) return new Map();
		let copy: LocalCopy | undefined;
		let outcome: Outcome;
		try {
			copy = await this.localCopyOf(raw);
			const recipients = new Map<string, Recipient>();
			for (const address of addresses) {
				const recipient = await this.options.resolveRecipient(address, address.slice(address.lastIndexOf('@') + 1));
				recipients.set(recipient.inbox, recipient);
			}
			// The copies' transaction also marks these recipients delivered (localCopy).
			await this.options.ingest.store({
				raw: copy.raw,
				recipients: [...recipients.values()],
				ip: entry.ip,
				via: entry.via,
				rtls: false,
				localCopy: { outgoingId: entry.record._id, addresses },
			});
			outcome = { status: 'delivered' };
		} catch (err) {
			outcome = { status: 'temporary', error: `storing the local copy failed: ${(err as Error).message}` };
		} finally {
			copy?.remove();
		}
		return new Map(addresses.map((address) => [address, outcome]));
	}

	/**
	 * The raw source as ingest takes it: a small one in memory the parser threads read without copying, a large one in a
	 * spool file, parsed in pieces as large SMTP mail is (whole in memory, a 24 MB copy cost its parse hundreds of MB): the
	 * sender's own file, or one written here from memory or the stored pieces (a piece at a time) and removed after.
	 */
	private async localCopyOf(raw: OutgoingRaw): Promise<LocalCopy> {
		const { spool } = this.options;
		if (isSpooledFile(raw)) return { raw, remove: () => undefined };
		if (Buffer.isBuffer(raw) && raw.length < spool.threshold) return { raw: sharedCopy(raw), remove: () => undefined };
		const spooled = { spoolPath: spool.create(), byteLength: raw.length };
		try {
			await pipeline(storedPieces(raw), createWriteStream(spooled.spoolPath));
		} catch (err) {
			spool.remove(spooled);
			throw err;
		}
		return { raw: spooled, remove: () => spool.remove(spooled) };
	}

	/**
	 * Each recipient's copy goes to the relay in a transaction of its own, with its own return path as the envelope sender
	 * (VERP), so a report sent back is matched to it; a copy recorded before return paths existed goes from the sender.
	 */
	private async relay(entry: OutboxEntry, raw: OutgoingRaw, recipients: OutgoingRecipient[]): Promise<Map<string, Outcome>> {
		const outcomes = new Map<string, Outcome>();
		const { relay } = this.options;
		for (const { address, returnPath } of recipients) {
			if (!relay) {
				outcomes.set(address, { status: 'temporary', error: 'no relay is configured (MAILROOM_RELAY_URL)' });
				continue;
			}
			// A large one is streamed to the relay, from the sender's spool file or a stored piece at a time.
			const source = Buffer.isBuffer(raw) ? raw : isSpooledFile(raw) ? createReadStream(raw.spoolPath) : Readable.from(storedPieces(raw));
			try {
				for (const [to, outcome] of await relay.send(source, returnPath ?? entry.record.from, [address])) outcomes.set(to, outcome);
			} finally {
				// Not read at all when the relay could not be reached: its file is closed all the same.
				if (source instanceof Readable) source.destroy();
			}
		}
		return outcomes;
	}
}

/** An attempt's raw source: as stored (in memory, or in pieces), or the sender's spool file. */
type OutgoingRaw = StoredBytes | SpooledBytes;

const isSpooledFile = (raw: OutgoingRaw): raw is SpooledBytes => 'spoolPath' in raw;

/** The raw source of a local copy as ingest takes it, and what removes it once stored (a spool file this outbox wrote). */
interface LocalCopy {
	raw: RawMessage;
	remove(): void;
}
