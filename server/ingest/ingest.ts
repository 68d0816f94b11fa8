import { EventEmitter, once } from 'node:events';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { MessageRecord, Recipient } from '../store/messages';
import type { Logger } from '../log';
import type { RawMessage } from './spool';
import type { IngestReply, IngestRequest, IngestThreadData } from './ingest-thread';
import type { StoredDelivery } from './delivery-writer';

export interface IncomingMail {
	/** The message as received: ideally backed by a SharedArrayBuffer, or spooled to a file when large (see readRaw). */
	raw: RawMessage;
	recipients: Recipient[];
	/** Address of the sending host. */
	ip: string;
	/** Address of the receiving host. */
	via: string;
	rtls: boolean;
	/** Set when this is the local copy of outgoing mail: its recipients are marked delivered in the same transaction. */
	localCopy?: { outgoingId: string; addresses: string[] };
}

/** What a message's transaction recorded besides its records, for the main thread to act on once it is durable. */
export interface DeliveryEffects {
	/** Records that got webhook or Slack deliveries to make. */
	webhookMessageIds: string[];
	/** Outgoing messages recorded to forward them. */
	forwardIds: string[];
}

/** A thread that ends sooner than this after its start is restarted only after this long, so a failing start does not spin. */
const QUICK_RESTART_MS = 1000;
/** The ingest thread's young generation (two 8 MB semi-spaces and room for large new objects): see startThread. */
const INGEST_YOUNG_GENERATION_MB = 24;

interface Waiting {
	resolve: (stored: StoredDelivery) => void;
	reject: (err: Error) => void;
}

/**
 * The one path by which mail enters the store, for SMTP and for local outbound delivery alike. Mail is
 * parsed and committed on the ingest thread (see DeliveryWriter); `deliver` resolves once the records are
 * durable, then `delivered` is emitted.
 */
export class Ingest extends EventEmitter<{ delivered: [MessageRecord[], DeliveryEffects] }> {
	private readonly inFlight = new Set<Promise<unknown>>();
	private readonly waiting = new Map<number, Waiting>();
	private nextId = 0;
	/** Undefined while a thread that ended is being replaced. */
	private thread: Worker | undefined;
	private restartTimer?: NodeJS.Timeout;
	private closing = false;

	constructor(
		private readonly config: IngestThreadData['config'],
		private readonly log: Logger,
	) {
		super();
		this.thread = this.startThread();
	}

	deliver(mail: IncomingMail): Promise<MessageRecord[]> {
		const done = new Promise<StoredDelivery>((resolve, reject) => {
			if (this.closing) return reject(new Error('the server is shutting down'));
			if (!this.thread) return reject(new Error('the ingest thread is restarting'));
			const id = this.nextId++;
			this.thread.postMessage({ id, mail } satisfies IngestRequest);
			this.waiting.set(id, { resolve, reject });
		}).then(({ records, effects }) => {
			this.emit('delivered', records, effects);
			return records;
		});
		this.inFlight.add(done);
		done.finally(() => this.inFlight.delete(done)).catch(() => undefined);
		return done;
	}

	/** Resolves when every delivery started so far has settled. */
	async settled(): Promise<void> {
		while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
	}

	/** Lets deliveries in progress finish, then ends the ingest thread (its last commit made durable). */
	async close(): Promise<void> {
		this.closing = true;
		await this.settled();
		clearTimeout(this.restartTimer);
		if (!this.thread) return;
		const exited = once(this.thread, 'exit');
		// Unreferenced, the thread would let the process end before its last commit is closed.
		this.thread.ref();
		this.thread.postMessage('close' satisfies IngestRequest);
		await exited;
	}

	private startThread(): Worker {
		const startedAt = Date.now();
		const thread = new Worker(join(__dirname, 'ingest-thread.js'), {
			workerData: { config: this.config } satisfies IngestThreadData,
			// Half V8's default young generation: its garbage is short-lived either way, and the full 32 MB of it stood out in
			// the server's peak RSS while ingesting (measured: 251-287 MB against 261-303 MB filling 1,000,000 records).
			resourceLimits: { maxYoungGenerationSizeMb: INGEST_YOUNG_GENERATION_MB },
		});
		thread.unref();
		thread.on('message', (replies: IngestReply[]) => {
			for (const answer of replies) {
				const waiting = this.waiting.get(answer.id)!;
				this.waiting.delete(answer.id);
				if ('error' in answer) waiting.reject(new Error(answer.error));
				else waiting.resolve(answer.stored);
			}
		});
		thread.on('error', (err) => this.log.error({ err }, 'the ingest thread failed'));
		thread.on('exit', () => {
			this.thread = undefined;
			// What it had not acknowledged may or may not have committed: the senders get a temporary failure and retry.
			const stopped = new Error('the ingest thread stopped');
			for (const waiting of this.waiting.values()) waiting.reject(stopped);
			this.waiting.clear();
			if (this.closing) return;
			const restart = () => (this.thread = this.startThread());
			if (Date.now() - startedAt < QUICK_RESTART_MS) this.restartTimer = setTimeout(restart, QUICK_RESTART_MS).unref();
			else restart();
		});
		return thread;
	}
}
