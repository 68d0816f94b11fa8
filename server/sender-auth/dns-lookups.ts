import { Resolver } from 'node:dns/promises';

/** What mailauth asks of DNS: `dns.promises.resolve(name, rrtype)`'s answer, or its error (with its `code`). */
export type DnsResolve = (name: string, rrtype: string) => Promise<string[] | string[][]>;

/**
 * How long answers are kept. Node's resolver does not tell the TTL of TXT records (SPF, DKIM, DMARC are TXT), so an
 * answer is kept for a minute: under what such records are published with in practice, and enough that a burst of mail
 * from one sender costs one lookup of each record.
 */
const ANSWER_MS = 60_000;
/** A name that does not exist, or has no record of the type: kept as long, as RFC 2308 lets negative answers be. */
const NEGATIVE_MS = 60_000;
/** A lookup that failed (no answer in time, a server failure): kept briefly, so a dead server is not asked for every message. */
const FAILURE_MS = 5_000;
/** Names kept at most; the oldest go first. */
const MAX_ENTRIES = 10_000;

/** The answers (negative ones included) mailauth reads as "no such record", not as a failure to look. */
const NEGATIVE_CODES = new Set(['ENOTFOUND', 'ENODATA']);

type Answer = string[] | string[][];

interface Entry {
	answer: Promise<Answer>;
	until: number;
	/** Once the lookup has ended: its answer or its error, for a lookup past its deadline to take at once. */
	settled?: { answer: Answer } | { error: NodeJS.ErrnoException };
}

export interface DnsLookupsOptions {
	/** `host[:port]` of each server to ask; empty: the system's (resolv.conf). */
	servers: string[];
	/** How long one lookup may take in all, ms. */
	timeoutMs: number;
	/** How long answers are kept and how many: the defaults above unless a test needs them short. */
	cache?: Partial<CacheLimits>;
}

export interface CacheLimits {
	answerMs: number;
	negativeMs: number;
	failureMs: number;
	maxEntries: number;
}

/**
 * DNS lookups for sender authentication: on the configured servers (or the system's), cached, with one lookup in flight
 * per name and type however many messages ask, and bounded in time. A `deadline` makes a lookup give up when it passes
 * (ETIMEOUT, which mailauth reports as `temperror`); the lookup itself goes on and its answer is kept for the next message.
 */
export class DnsLookups {
	private readonly resolver: Resolver;
	private readonly entries = new Map<string, Entry>();
	private readonly limits: CacheLimits;

	constructor(options: DnsLookupsOptions) {
		this.limits = { answerMs: ANSWER_MS, negativeMs: NEGATIVE_MS, failureMs: FAILURE_MS, maxEntries: MAX_ENTRIES, ...options.cache };
		// c-ares's timeout is per try, doubled on each; two tries fit in the budget.
		this.resolver = new Resolver({ timeout: Math.max(1, Math.floor(options.timeoutMs / 3)), tries: 2 });
		if (options.servers.length) this.resolver.setServers(options.servers);
	}

	/**
	 * mailauth's resolver for one message: every lookup it makes ends by `deadline` (epoch ms). Past it only an answer
	 * already at hand comes (the cache's): so SPF, looked up ahead, still gets its answers when a DKIM key never came.
	 */
	within(deadline: number): DnsResolve {
		return (name, rrtype) => {
			const entry = this.lookup(name, rrtype);
			const left = deadline - Date.now();
			if (left <= 0) {
				if (!entry.settled) return Promise.reject(timedOut(name));
				return 'answer' in entry.settled ? Promise.resolve(entry.settled.answer) : Promise.reject(entry.settled.error);
			}
			let timer: NodeJS.Timeout | undefined;
			const expired = new Promise<never>((_resolve, reject) => {
				timer = setTimeout(() => reject(timedOut(name)), left);
			});
			return Promise.race([entry.answer, expired]).finally(() => clearTimeout(timer));
		};
	}

	private lookup(name: string, rrtype: string): Entry {
		const key = `${rrtype} ${name.toLowerCase()}`;
		const now = Date.now();
		const cached = this.entries.get(key);
		if (cached && cached.until > now) return cached;
		const entry: Entry = { answer: this.resolver.resolve(name, rrtype) as Promise<Answer>, until: Infinity };
		entry.answer.then(
			(answer) => {
				entry.settled = { answer };
				entry.until = Date.now() + this.limits.answerMs;
			},
			(error: NodeJS.ErrnoException) => {
				entry.settled = { error };
				entry.until = Date.now() + (NEGATIVE_CODES.has(error.code ?? '') ? this.limits.negativeMs : this.limits.failureMs);
			},
		);
		this.entries.delete(key);
		this.entries.set(key, entry);
		if (this.entries.size > this.limits.maxEntries) this.entries.delete(this.entries.keys().next().value!);
		return entry;
	}
}

function timedOut(name: string): Error {
	return Object.assign(new Error(`DNS lookup of ${name} did not finish in time`), { code: 'ETIMEOUT' });
}
