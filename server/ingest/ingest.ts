import { EventEmitter, once } from 'node:events';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { IncomingMail } from '../mail/incoming-mail';
import type { MessageRecord } from '../schemas/message';
import type { Logger } from '../log';
import { StoreUnavailableError, type CommitFigures } from '../store/store';
import type { IngestReply, IngestRequest, IngestThreadData, IngestThreadMessage } from './ingest-thread';
import type { RecordedEffects, StoredMail } from './message-writer';

/** A thread that ends sooner than this after its start is restarted only after this long, so a failing start does not spin. */
const QUICK_RESTART_MS = 1000;
/** The ingest thread's young generation (two 8 MB semi-spaces and room for large new objects): see startThread. */
const INGEST_YOUNG_GENERATION_MB = 24;

/** The error the ingest thread answered with, as the main thread's callers tell it: its class and code kept. */
function failureOf(answer: Extract<IngestReply, { error: string }>): Error {
	const err = answer.unavailable ? new StoreUnavailableError(answer.error) : new Error(answer.error);
	return answer.code === undefined ? err : Object.assign(err, { code: answer.code });
}

interface Waiting {
	resolve: (stored: StoredMail) => void;
	reject: (err: Error) => void;
}

export interface IngestEvents {
	stored: [MessageRecord[], RecordedEffects];
	/** A group commit of the ingest thread, once durable: its size and times (for /metrics). */
	committed: [CommitFigures];
	/** A message whose parse failed was stored unparsed. */
	unparsed: [];
	/** A message could not be stored (SMTP answers 4xx; an outgoing message's local copy is tried again). */
	failed: [Error];
}

/**
 * The one path by which mail enters the store, for SMTP and for local copies of outgoing mail alike. Mail is
 * parsed and committed on the ingest thread (see MessageWriter); `store` resolves once the records are
 * durable, then `stored` is emitted.
 */
export class Ingest extends EventEmitter<IngestEvents> {
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

	store(mail: IncomingMail): Promise<MessageRecord[]> {
		const done = new Promise<StoredMail>((resolve, reject) => {
			if (this.closing) return reject(new Error('the server is shutting down'));
			if (!this.thread) return reject(new Error('the ingest thread is restarting'));
			const id = this.nextId++;
			this.thread.postMessage({ id, mail } satisfies IngestRequest);
			this.waiting.set(id, { resolve, reject });
		}).then(({ records, effects, unparsed }) => {
			if (unparsed) this.emit('unparsed');
			this.emit('stored', records, effects);
			return records;
		});
		this.inFlight.add(done);
		done.finally(() => this.inFlight.delete(done)).catch((err: Error) => this.emit('failed', err));
		return done;
	}

	/**
	 * Mail another node of the database stored (as the store heard it): the same `stored` event, so websockets, waiters and
	 * work queues here act on it as on this node's mail.
	 */
	storedByAnotherNode(records: MessageRecord[], effects: RecordedEffects): void {
		if (!this.closing) this.emit('stored', records, effects);
	}

	/** Resolves when every message whose storing has begun is stored or refused. */
	async settled(): Promise<void> {
		while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
	}

	/** Lets messages being stored finish, then ends the ingest thread (its last commit made durable). */
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
		thread.on('message', ({ replies, commits }: IngestThreadMessage) => {
			for (const commit of commits) this.emit('committed', commit);
			for (const answer of replies) {
				const waiting = this.waiting.get(answer.id)!;
				this.waiting.delete(answer.id);
				if ('error' in answer) waiting.reject(failureOf(answer));
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
