import { Counter, Histogram, type Registry } from 'prom-client';
import { scrapedGauge } from './scraped-gauge';

/**
 * Why the SMTP listener refused something, one reason per place it refuses: a connection (connections), a sender (sender,
 * shutdown), a recipient (recipients, address, domain, route), a message (size, bare_lf, submission) or a session that
 * ran out of time (timeout); unavailable and error are the 451s of a database that cannot be reached and of any other
 * failure.
 */
export const SMTP_REFUSAL_REASONS = [
	'connections',
	'shutdown',
	'sender',
	'recipients',
	'address',
	'domain',
	'route',
	'size',
	'bare_lf',
	'submission',
	'chaos',
	'timeout',
	'unavailable',
	'error',
] as const;
export type SmtpRefusalReason = (typeof SMTP_REFUSAL_REASONS)[number];

/**
 * How an AUTH ended: any password that is no key (accepted, delivering into inboxes), an API key (a submission session),
 * a password taken for a key that is none (535), a client address over its failures (454), the store away (454).
 */
export const SMTP_AUTH_OUTCOMES = ['any_password', 'api_key', 'invalid_key', 'blocked', 'unavailable'] as const;
export type SmtpAuthOutcome = (typeof SMTP_AUTH_OUTCOMES)[number];

/** An accepted message: received into inboxes, or submitted by an account to send. */
export type AcceptedKind = 'received' | 'submitted';

/** Seconds, from a millisecond to the DATA timeout's order. */
const DURABLE_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** What the SMTP listener counts: sessions, accepted messages, refusals by reason, AUTH outcomes, and the wait for durability. */
export class SmtpMetrics {
	private readonly opened: Counter;
	private readonly accepted: Counter<'kind'>;
	private readonly refusals: Counter<'reason'>;
	private readonly auth: Counter<'outcome'>;
	private readonly dataToDurable: Histogram;
	private openSessions: () => number = () => 0;

	constructor(registry: Registry) {
		const registers = [registry];
		this.opened = new Counter({
			name: 'mailroom_smtp_sessions_opened_total',
			help: 'SMTP connections accepted (greeted with 220)',
			registers,
		});
		scrapedGauge(registry, { name: 'mailroom_smtp_sessions_open', help: 'SMTP connections open now' }, (gauge) =>
			gauge.set(this.openSessions()),
		);
		this.accepted = new Counter({
			name: 'mailroom_smtp_messages_accepted_total',
			help: 'Messages answered 250 at the end of DATA: received into inboxes, or submitted by an account to send',
			labelNames: ['kind'],
			registers,
		});
		this.refusals = new Counter({
			name: 'mailroom_smtp_refusals_total',
			help: 'Refusals the SMTP listener answered (a refused RCPT TO counts once per recipient), by reason',
			labelNames: ['reason'],
			registers,
		});
		this.auth = new Counter({
			name: 'mailroom_smtp_auth_attempts_total',
			help: 'SMTP AUTH attempts, by outcome',
			labelNames: ['outcome'],
			registers,
		});
		this.dataToDurable = new Histogram({
			name: 'mailroom_smtp_data_to_durable_seconds',
			help: "Time from the end of a received message's DATA until it is durable and its 250 goes out (parse, commit, fsync)",
			buckets: DURABLE_BUCKETS,
			registers,
		});
		// Every series from the start, at 0: a rate over a series that appears with its first event misses that event.
		for (const kind of ['received', 'submitted'] as const) this.accepted.inc({ kind }, 0);
		for (const reason of SMTP_REFUSAL_REASONS) this.refusals.inc({ reason }, 0);
		for (const outcome of SMTP_AUTH_OUTCOMES) this.auth.inc({ outcome }, 0);
	}

	/** Where the number of open sessions is read at each scrape. */
	countOpenSessions(count: () => number): void {
		this.openSessions = count;
	}

	sessionOpened(): void {
		this.opened.inc();
	}

	messageAccepted(kind: AcceptedKind): void {
		this.accepted.inc({ kind });
	}

	refused(reason: SmtpRefusalReason): void {
		this.refusals.inc({ reason });
	}

	authenticated(outcome: SmtpAuthOutcome): void {
		this.auth.inc({ outcome });
	}

	/** A received message became durable `seconds` after the end of its DATA. */
	durableAfter(seconds: number): void {
		this.dataToDurable.observe(seconds);
	}
}
