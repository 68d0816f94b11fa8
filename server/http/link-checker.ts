import http from 'node:http';
import https from 'node:https';
import type { LinkResult } from '../schemas/link-check';
import {
	RefusedTargetError,
	checkedLookup,
	systemResolver,
	urlRefusal,
	type PrivateTargets,
	type Resolver,
	type TargetOwner,
	type TargetPolicy,
} from '../webhooks/target-policy';

/** Links checked per message; the rest are reported unchecked. */
export const MAX_CHECKED_LINKS = 50;
/** Requests in flight at once for the whole server, whoever asks: checking is on request, and must not become a flood. */
const MAX_CONCURRENT = 8;
/** Each link, its redirects included, gets this long. */
const LINK_TIMEOUT_MS = 5000;
const MAX_REDIRECTS = 5;
/** A message's answers are kept this long, so opening its Links tab again does not check them again. */
const CACHE_MS = 60_000;
const CACHE_ENTRIES = 200;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface LinkCheckerOptions {
	/** The webhooks' SSRF policy: a link is reached only where a webhook of the same account could be. */
	policy: TargetPolicy;
	resolver?: Resolver;
	timeoutMs?: number;
}

interface Answer {
	statusCode: number;
	location?: string;
}

/** Why a link was not reached: the policy refused it, or the network failed. */
class LinkRefused extends Error {}

/**
 * Checks, on request, whether a message's links answer: HEAD, then GET when HEAD is answered with an error (some servers
 * refuse HEAD), following up to five redirects. Every hop is held to the webhooks' SSRF policy for the account asking:
 * its URL by form (scheme, IP literal), and the address actually connected to by the agent's lookup, so a redirect (or a
 * name that resolves differently later) cannot lead into a private range the account may not reach. Bodies are never
 * read. At most MAX_CONCURRENT requests at once server-wide; answers are kept a minute per message and account kind.
 */
export class LinkChecker {
	private readonly cache = new Map<string, { expires: number; results: Promise<LinkResult[]>; checked: string }>();
	private readonly agents = new Map<PrivateTargets, { http: http.Agent; https: https.Agent }>();
	private readonly waiting: (() => void)[] = [];
	private active = 0;
	private readonly timeoutMs: number;

	constructor(private readonly options: LinkCheckerOptions) {
		this.timeoutMs = options.timeoutMs ?? LINK_TIMEOUT_MS;
	}

	/** The links' results, and when they were checked; `cacheKey` names the message. */
	async check(cacheKey: string, links: string[], owner: TargetOwner): Promise<{ checked: string; links: LinkResult[] }> {
		const key = `${cacheKey}:${owner.isAdmin ? 'admin' : 'account'}`;
		const now = Date.now();
		let entry = this.cache.get(key);
		if (!entry || entry.expires <= now) {
			this.cache.delete(key);
			if (this.cache.size >= CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
			entry = { expires: now + CACHE_MS, checked: new Date(now).toISOString(), results: this.checkAll(links, owner) };
			this.cache.set(key, entry);
		}
		return { checked: entry.checked, links: await entry.results };
	}

	close(): void {
		for (const agents of this.agents.values()) {
			agents.http.destroy();
			agents.https.destroy();
		}
	}

	private checkAll(links: string[], owner: TargetOwner): Promise<LinkResult[]> {
		const unique = [...new Set(links)];
		return Promise.all(
			unique.map((url, index) =>
				index < MAX_CHECKED_LINKS
					? this.checkOne(url, owner)
					: Promise.resolve(result(url, 'unchecked', null, `not checked: only the first ${MAX_CHECKED_LINKS} links of a message are`)),
			),
		);
	}

	private async checkOne(url: string, owner: TargetOwner): Promise<LinkResult> {
		if (!/^https?:\/\//i.test(url)) return result(url, 'unchecked', null, 'only http and https links are checked');
		await this.slot();
		const signal = AbortSignal.timeout(this.timeoutMs);
		const redirects: string[] = [];
		try {
			let current = new URL(url);
			for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
				const answer = await this.reach(current, owner, signal);
				if (!REDIRECTS.has(answer.statusCode) || answer.location === undefined) {
					const { statusCode } = answer;
					return {
						...result(url, statusCode < 400 ? 'ok' : 'broken', statusCode, statusCode < 400 ? null : `HTTP ${statusCode}`),
						redirects,
					};
				}
				current = new URL(answer.location, current);
				redirects.push(current.href);
			}
			return { ...result(url, 'error', null, `more than ${MAX_REDIRECTS} redirects`), redirects };
		} catch (err) {
			if (err instanceof LinkRefused) return { ...result(url, 'refused', null, `refused: ${err.message}`), redirects };
			const reason = signal.aborted ? `timed out after ${this.timeoutMs} ms` : errorText(err as NodeJS.ErrnoException);
			return { ...result(url, 'error', null, reason), redirects };
		} finally {
			this.release();
		}
	}

	/** HEAD, or GET when HEAD is answered with an error. */
	private async reach(target: URL, owner: TargetOwner, signal: AbortSignal): Promise<Answer> {
		const privateTargets = this.options.policy.privateTargets(target.href, owner);
		const refusal = urlRefusal(target.href, privateTargets);
		if (refusal) throw new LinkRefused(refusal);
		const head = await this.request('HEAD', target, privateTargets, signal);
		return head.statusCode >= 400 ? this.request('GET', target, privateTargets, signal) : head;
	}

	private request(method: 'HEAD' | 'GET', target: URL, privateTargets: PrivateTargets, signal: AbortSignal): Promise<Answer> {
		const secure = target.protocol === 'https:';
		const agents = this.agentsFor(privateTargets);
		return new Promise((resolve, reject) => {
			const request = (secure ? https : http).request(target, {
				method,
				signal,
				agent: secure ? agents.https : agents.http,
				headers: { 'user-agent': 'Mailroom-LinkCheck/1', accept: '*/*' },
			});
			request.on('error', (err) => reject(err instanceof RefusedTargetError ? new LinkRefused(err.message) : err));
			request.on('response', (response) => {
				// Only the status matters: the body is never read.
				response.destroy();
				const location = response.headers.location;
				resolve({ statusCode: response.statusCode ?? 0, location: typeof location === 'string' ? location : undefined });
			});
			request.end();
		});
	}

	private agentsFor(privateTargets: PrivateTargets): { http: http.Agent; https: https.Agent } {
		let agents = this.agents.get(privateTargets);
		if (!agents) {
			const lookup = checkedLookup(privateTargets, this.options.resolver ?? systemResolver);
			agents = { http: new http.Agent({ lookup }), https: new https.Agent({ lookup }) };
			this.agents.set(privateTargets, agents);
		}
		return agents;
	}

	private slot(): Promise<void> {
		if (this.active < MAX_CONCURRENT) {
			this.active++;
			return Promise.resolve();
		}
		return new Promise((resolve) => this.waiting.push(resolve));
	}

	/** Hands the slot straight to the next waiting check, if any. */
	private release(): void {
		const next = this.waiting.shift();
		if (next) next();
		else this.active--;
	}
}

function result(url: string, status: LinkResult['status'], statusCode: number | null, error: string | null): LinkResult {
	return { url, status, statusCode, error, redirects: [] };
}

function errorText(err: NodeJS.ErrnoException): string {
	return err.code && !err.message.includes(err.code) ? `${err.code}: ${err.message}` : err.message;
}
