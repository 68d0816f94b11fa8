import {
	leaseOf,
	type AccountStore,
	type AttemptExchange,
	type AttemptRecord,
	type DeliveryEventStore,
	type DeliveryRow,
	type EncryptedInboxStore,
	type MessageStore,
	type WebhookDeliveryStore,
	type WebhookSecretStore,
} from '../store/store';
import type { Logger } from '../log';
import { piecedBody, type PiecedBody } from '../bytes/pieced-body';
import type { SendResult, WebhookSender } from './webhook-sender';
import { buildPayload } from '../payload/webhook-payload';
import { jsonBytes } from '../bytes/streamed-json';
import { DeletedWhileReadError } from '../bytes/stored-bytes';
import { buildSlackPayload } from './slack-payload';
import { WebhookSigner } from './signature';
import { ByteHead } from '../bytes/byte-head';
import type { TargetPolicy } from './target-policy';
import { LeasedWork, type WorkQueue } from '../work/leased-work';
import type { WebhookMetrics } from '../metrics/webhook-metrics';

export interface WebhookDispatcherOptions {
	deliveries: WebhookDeliveryStore;
	messages: MessageStore;
	/** The delivery events posted to event subscriptions. */
	events: DeliveryEventStore;
	secrets: WebhookSecretStore;
	encryptedInboxes: EncryptedInboxStore;
	/** This node: the holder of the leases of the deliveries it takes, for `lease` ms at a time (--work-lease). */
	node: string;
	lease: number;
	sender: WebhookSender;
	/** Which targets each account's webhooks may reach (its admin flag counts, from `accounts`). */
	policy: TargetPolicy;
	accounts: Pick<AccountStore, 'find'>;
	/** Where clients reach this server's API, for the attachment links in payloads (known once the server listens). */
	publicUrl: () => string;
	/** Delay (ms) before each attempt; schedule[n] is the wait after the n-th failed attempt. */
	schedule: number[];
	hostConcurrency: number;
	log: Logger;
	/** Where each attempt's outcome and time are counted. */
	metrics: Pick<WebhookMetrics, 'attempted'>;
	/** For jitter; tests may pin it. */
	random?: () => number;
}

/** Deliveries claimed per query. */
const PAGE = 200;
/** Deliveries held in memory per host; the rest wait in the database (unclaimed) until the queue drains. */
const MAX_QUEUED_PER_HOST = 1000;
/** The worker looks at the database at least this often, whatever it expects. */
const MAX_SLEEP_MS = 60_000;
/** A Retry-After longer than this is cut to it. */
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;
/** What n8n answers, with 200, to every URL for a moment of its start (database connected, migrations not yet checked). */
const N8N_STARTING_UP = 'n8n is starting up. Please wait';
/** Of each request body, this much is kept in the attempt's log (a payload holds the text, HTML and raw source: it may be megabytes). */
export const REQUEST_BODY_KEPT = 32 * 1024;

/** What sending came to, with what was sent: the start of the body, and whether the message was gone. */
type Sent = SendResult & { gone?: boolean; requestBody?: { head: Buffer; bytes: number } };

interface HostQueue {
	active: number;
	waiting: DeliveryRow[];
}

/** Retries are spread ±20% so deliveries that failed together do not come back together. */
function jitter(delay: number, random: () => number): number {
	return Math.round(delay * (0.8 + 0.4 * random()));
}

function hostOf(url: string): string {
	try {
		return new URL(url).host;
	} catch {
		return '';
	}
}

/**
 * Sends due deliveries, at most `hostConcurrency` at a time per target host, so a slow or dead endpoint only holds up its
 * own queue. Deliveries are claimed from the database under a lease (see Lease), so nodes sharing a database each send
 * a delivery once, and one a stopped node held is taken up by another once its lease runs out. The dispatcher claims
 * what is due when told of new deliveries (`dispatch`), when a redelivery is asked for, and when the next one is due.
 */
export class WebhookDispatcher implements WorkQueue {
	readonly name = 'webhook deliveries';
	private readonly held = new Set<string>();
	private readonly hosts = new Map<string, HostQueue>();
	private readonly inFlight = new Set<Promise<void>>();
	private readonly random: () => number;
	private readonly work: LeasedWork;
	/** Some due deliveries were left in the database because their host's queue was full. */
	private backlogged = false;

	constructor(private readonly options: WebhookDispatcherOptions) {
		this.random = options.random ?? Math.random;
		this.work = new LeasedWork(this, options.lease, options.log);
	}

	start(): void {
		this.work.start();
	}

	/** Takes the deliveries of just-committed messages (of this node or another). */
	dispatch(): void {
		this.work.look();
	}

	/** Queues a failed or refused delivery again, due now; false when it is in neither state. */
	async redeliver(id: string): Promise<boolean> {
		if (!(await this.options.deliveries.redeliver(id, Date.now()))) return false;
		this.work.look();
		return true;
	}

	/** Stops taking work and waits for attempts in flight; queued deliveries stay pending in the database, free for any node. */
	async close(): Promise<void> {
		this.work.stop();
		for (const queue of this.hosts.values()) queue.waiting.length = 0;
		while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
		this.options.sender.close();
		await this.work.releaseLeases();
	}

	/** Claims what is due, a page at a time, into the hosts' queues; looks again at the next due, or within MAX_SLEEP_MS. */
	async take(now: number): Promise<number | undefined> {
		const { deliveries, node } = this.options;
		this.backlogged = false;
		let page: DeliveryRow[];
		do {
			page = await deliveries.claim(now, PAGE, leaseOf(node, this.options.lease));
			const overflow = page.filter((delivery) => !this.enqueue(delivery)).map((delivery) => delivery.id);
			if (overflow.length) {
				// Their hosts' queues are full: back to the database, free for any node, until a queue drains.
				await deliveries.releaseLeases(node, overflow);
				this.backlogged = true;
				break;
			}
		} while (page.length === PAGE && !this.work.stopped);
		return Math.min((await deliveries.nextDue(now)) ?? Infinity, now + MAX_SLEEP_MS);
	}

	/** Keeps this node's leases on what it holds (deliveries waiting behind a slow host may wait minutes). */
	async renewLeases(): Promise<void> {
		if (this.held.size > 0) await this.options.deliveries.renewLeases(leaseOf(this.options.node, this.options.lease));
	}

	releaseLeases(ids?: string[]): Promise<void> {
		return this.options.deliveries.releaseLeases(this.options.node, ids);
	}

	/** Puts a claimed delivery in its host's queue; false when that queue is full. */
	private enqueue(delivery: DeliveryRow): boolean {
		if (this.work.stopped) return false;
		if (this.held.has(delivery.id)) return true;
		const host = hostOf(delivery.url);
		let queue = this.hosts.get(host);
		if (!queue) this.hosts.set(host, (queue = { active: 0, waiting: [] }));
		if (queue.waiting.length >= MAX_QUEUED_PER_HOST) return false;
		this.held.add(delivery.id);
		queue.waiting.push(delivery);
		this.pump(host, queue);
		return true;
	}

	private pump(host: string, queue: HostQueue): void {
		while (queue.active < this.options.hostConcurrency && queue.waiting.length) {
			const delivery = queue.waiting.shift()!;
			queue.active++;
			// The host's slot is freed once the exchange is over; the delivery stays held until its outcome is committed.
			const freeSlot = () => {
				queue.active--;
				if (queue.active === 0 && queue.waiting.length === 0) this.hosts.delete(host);
				else this.pump(host, queue);
				if (this.backlogged && queue.waiting.length < MAX_QUEUED_PER_HOST / 2) this.work.lookAt(Date.now());
			};
			const run: Promise<void> = this.attempt(delivery, freeSlot)
				.catch((err: Error) => {
					this.options.log.error({ err, deliveryId: delivery.id }, 'webhook attempt could not be recorded; retrying later');
					this.work.unrecordedAttempt(delivery.id);
				})
				.finally(() => {
					this.held.delete(delivery.id);
					this.inFlight.delete(run);
				});
			this.inFlight.add(run);
		}
	}

	private async attempt(delivery: DeliveryRow, freeSlot: () => void): Promise<void> {
		let result: Sent;
		try {
			result = await this.send(delivery);
		} finally {
			freeSlot();
		}
		const outcome = this.judge(delivery, result);
		this.options.metrics.attempted(outcome.status, outcome.durationMs);
		await this.options.deliveries.recordAttempt(delivery, outcome);
		if (outcome.nextRetry !== null) this.work.lookAt(outcome.nextRetry);
	}

	/** Builds the payload from the stored message, signs it and posts it (a Slack summary goes unsigned: Slack ignores it). */
	private async send(delivery: DeliveryRow): Promise<Sent> {
		const { secrets, sender, policy, accounts } = this.options;
		const payload = delivery.event_id ? await this.options.events.get(delivery.event_id) : await this.messagePayload(delivery);
		if (!payload) return { gone: true, error: 'the message was deleted before it could be delivered', durationMs: 0 };
		const now = new Date();
		const signer =
			delivery.kind === 'webhook'
				? new WebhookSigner(await secrets.signing(delivery.account_id, now.getTime()), delivery.id, now)
				: undefined;
		let body: PiecedBody;
		// The body's head is kept as it is measured (and signed): the same bytes as are sent, never the whole held for it.
		const head = new ByteHead(REQUEST_BODY_KEPT);
		try {
			body = await piecedBody(
				() => jsonBytes(payload),
				(piece) => {
					signer?.update(piece);
					head.add(piece);
				},
			);
		} catch (err) {
			if (err instanceof DeletedWhileReadError) return { gone: true, error: err.message, durationMs: 0 };
			throw err;
		}
		const owner = await accounts.find(delivery.account_id);
		const privateTargets = policy.privateTargets(delivery.url, { isAdmin: owner?.isAdmin ?? false });
		return { ...(await sender.send(delivery.url, body, signer?.headers() ?? {}, privateTargets)), requestBody: head.result() };
	}

	/** The payload of a message's delivery (the webhook payload, or a Slack summary); undefined when it is gone. */
	private async messagePayload(delivery: DeliveryRow): Promise<object | undefined> {
		const { messages, encryptedInboxes, publicUrl } = this.options;
		const record = await messages.get(delivery.address, delivery.message_id);
		const content = record && (await messages.content(delivery.address, delivery.message_id));
		if (!record || !content) return undefined;
		return delivery.kind === 'webhook'
			? await buildPayload(record, content, await encryptedInboxes.tokenFor(record.inbox), publicUrl())
			: await buildSlackPayload(record, content, delivery.kind === 'slack-to-from');
	}

	/**
	 * 2xx delivered; 410 stops; 408, 429, 5xx and network errors retry while the schedule lasts; anything else fails. A reply
	 * hook's delivery also retries a 409 and a 404 until the hook expires. n8n answers 409 to a resume URL while the execution is
	 * still running (the Send and Wait node has sent its mail but n8n has not yet stored the execution as waiting), and 404 to
	 * every URL for the first seconds of its start, before it has registered its routes; for a moment before that, it answers
	 * 200 with N8N_STARTING_UP, which resumed nothing.
	 */
	private judge(delivery: DeliveryRow, result: Sent): AttemptRecord {
		const time = Date.now();
		const exchange: AttemptExchange | undefined =
			result.requestHeaders && result.requestBody
				? {
						request: { headers: result.requestHeaders, body: result.requestBody },
						response: result.response ?? null,
					}
				: undefined;
		const base = { statusCode: result.statusCode ?? null, durationMs: result.durationMs, time, nextRetry: null, exchange };
		if (result.refused) return { ...base, status: 'refused', error: `refused: ${result.refused}` };
		if (result.gone) return { ...base, status: 'failed', error: result.error! };
		const code = result.statusCode;
		const hookExpires = delivery.reply_hook_expires == null ? undefined : Number(delivery.reply_hook_expires);
		const n8nStarting =
			hookExpires !== undefined && code === 200 && result.response?.body.head.toString('utf8').startsWith(N8N_STARTING_UP) === true;
		if (code !== undefined && code >= 200 && code < 300 && !n8nStarting) return { ...base, status: 'delivered', error: null };
		const detail = result.bodySnippet ? `: ${result.bodySnippet}` : n8nStarting ? `: ${N8N_STARTING_UP}` : '';
		if (code === 410) return { ...base, status: 'failed', error: `HTTP 410: the receiver asked to stop${detail}` };
		const resumeNotReady = (code === 409 || code === 404 || n8nStarting) && hookExpires !== undefined;
		const retryable = code === undefined || code === 408 || code === 429 || code >= 500 || resumeNotReady;
		const error =
			code === undefined ? result.error! : `HTTP ${code}${code >= 300 && code < 400 ? ' (redirects are not followed)' : ''}${detail}`;
		const position = delivery.attempts + 1 - delivery.schedule_start;
		if (!retryable || position >= this.options.schedule.length) return { ...base, status: 'failed', error };
		const delay =
			result.retryAfterMs !== undefined
				? Math.min(result.retryAfterMs, MAX_RETRY_AFTER_MS)
				: jitter(this.options.schedule[position], this.random);
		if (resumeNotReady && time + delay >= hookExpires) return { ...base, status: 'failed', error: `${error} (the reply hook expired)` };
		return { ...base, status: 'retrying', error, nextRetry: time + delay };
	}
}
