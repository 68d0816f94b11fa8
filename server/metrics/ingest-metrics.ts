import { Counter, Histogram, type Registry } from 'prom-client';
import type { Ingest } from '../ingest/ingest';
import type { CommitFigures } from '../store/store';

/** Messages per group commit: one alone when mail is quiet, hundreds under load. */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
/** Seconds of a commit or an fsync. */
const COMMIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * The ingest thread's group commits, measured where they run and sent back with their replies (see IngestThreadMessage),
 * and the messages stored unparsed.
 */
export class IngestMetrics {
	private readonly batchMessages: Histogram;
	private readonly commitSeconds: Histogram;
	private readonly syncSeconds: Histogram;
	private readonly parseFailures: Counter;

	constructor(registry: Registry) {
		const registers = [registry];
		this.batchMessages = new Histogram({
			name: 'mailroom_ingest_commit_batch_messages',
			help: 'Messages stored together in one group commit of the ingest thread',
			buckets: BATCH_BUCKETS,
			registers,
		});
		this.commitSeconds = new Histogram({
			name: 'mailroom_ingest_commit_duration_seconds',
			help: "A group commit's transaction, from its BEGIN to its COMMIT, its writes included",
			buckets: COMMIT_BUCKETS,
			registers,
		});
		this.syncSeconds = new Histogram({
			name: 'mailroom_ingest_sync_duration_seconds',
			help: "The wait after a group commit's COMMIT until it is durable (SQLite's WAL fsync with --durability full)",
			buckets: COMMIT_BUCKETS,
			registers,
		});
		this.parseFailures = new Counter({
			name: 'mailroom_ingest_parse_failures_total',
			help: 'Messages whose parse failed (a timeout, a crash, a limit), stored unparsed with their raw source as text',
			registers,
		});
	}

	/** Counts what `ingest` reports from its thread. */
	observe(ingest: Ingest): void {
		ingest.on('committed', (commit) => this.committed(commit));
		ingest.on('unparsed', () => this.parseFailures.inc());
	}

	private committed({ writes, transactionMs, durableMs }: CommitFigures): void {
		this.batchMessages.observe(writes);
		this.commitSeconds.observe(transactionMs / 1000);
		this.syncSeconds.observe(durableMs / 1000);
	}
}
