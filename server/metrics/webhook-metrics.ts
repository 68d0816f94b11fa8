import { Counter, Histogram, type Registry } from 'prom-client';
import type { AttemptStatus } from '../schemas/webhook';

const OUTCOMES: readonly AttemptStatus[] = ['delivered', 'retrying', 'failed', 'refused'];
/** Seconds of one attempt, up to --webhook-timeout's order. */
const ATTEMPT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Webhook attempts (Slack's included), by the outcome each is logged with in Recent Activity, and their time. */
export class WebhookMetrics {
	private readonly attempts: Counter<'outcome'>;
	private readonly seconds: Histogram<'outcome'>;

	constructor(registry: Registry) {
		const registers = [registry];
		this.attempts = new Counter({
			name: 'mailroom_webhook_attempts_total',
			help: 'Webhook delivery attempts, by outcome: delivered, retrying (will be tried again), failed, refused (by the target policy)',
			labelNames: ['outcome'],
			registers,
		});
		this.seconds = new Histogram({
			name: 'mailroom_webhook_attempt_duration_seconds',
			help: 'Time of one webhook attempt (connect, request and response), by outcome',
			labelNames: ['outcome'],
			buckets: ATTEMPT_BUCKETS,
			registers,
		});
		for (const outcome of OUTCOMES) this.attempts.inc({ outcome }, 0);
	}

	attempted(outcome: AttemptStatus, durationMs: number): void {
		this.attempts.inc({ outcome });
		this.seconds.observe({ outcome }, durationMs / 1000);
	}
}
