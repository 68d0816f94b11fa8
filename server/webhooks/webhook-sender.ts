import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { RefusedTargetError, checkedLookup, refusalReason, systemResolver, type Resolver } from './target-policy';
import type { PiecedBody } from '../bytes/pieced-body';

/** What one POST came to. Exactly one of statusCode, error or refused is set. */
export interface SendResult {
	statusCode?: number;
	/** Network failure or timeout. */
	error?: string;
	/** The SSRF policy refused the target; nothing was sent. */
	refused?: string;
	/** From a Retry-After header, in ms. */
	retryAfterMs?: number;
	/** Start of a non-2xx response body, to show in Recent Activity. */
	bodySnippet?: string;
	durationMs: number;
}

export interface WebhookSenderOptions {
	timeoutMs: number;
	allowPrivate: boolean;
	resolver?: Resolver;
}

const SNIPPET_BYTES = 200;

/** Resolves once the request can take more, or is over. */
function drained(request: http.ClientRequest): Promise<void> {
	return new Promise((resolve) => {
		const done = () => {
			request.off('drain', done);
			request.off('close', done);
			resolve();
		};
		request.on('drain', done);
		request.on('close', done);
	});
}

/** Writes the body a piece at a time, as fast as the connection takes it; a body that fails or comes out other than measured (its message deleted meanwhile) fails the request. */
async function writeBody(request: http.ClientRequest, body: PiecedBody): Promise<void> {
	try {
		let written = 0;
		for await (const piece of body.pieces()) {
			if (request.destroyed) return;
			written += piece.length;
			if (!request.write(piece)) await drained(request);
		}
		if (written !== body.length) throw new Error('the message changed while it was being sent');
		request.end();
	} catch (err) {
		request.destroy(err as Error);
	}
}

/** Retry-After as seconds or an HTTP date, in ms from now. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
	if (!value) return undefined;
	if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Strips IPv6 brackets: URL.hostname keeps them. */
const bareHost = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * POSTs webhook bodies. Keep-alive agents whose `lookup` enforces the SSRF policy on the address
 * actually connected to; IP literals (which skip lookup) are checked before connecting.
 * Redirects are never followed: node:http does not follow them.
 */
export class WebhookSender {
	private readonly httpAgent: http.Agent;
	private readonly httpsAgent: https.Agent;

	constructor(private readonly options: WebhookSenderOptions) {
		const lookup = checkedLookup(options.allowPrivate, options.resolver ?? systemResolver);
		this.httpAgent = new http.Agent({ keepAlive: true, lookup });
		this.httpsAgent = new https.Agent({ keepAlive: true, lookup });
	}

	send(url: string, body: PiecedBody, headers: Record<string, string>): Promise<SendResult> {
		const started = performance.now();
		const elapsed = () => Math.round(performance.now() - started);
		let target: URL;
		try {
			target = new URL(url);
		} catch {
			return Promise.resolve({ refused: `${url} is not a valid URL`, durationMs: 0 });
		}
		if (target.protocol !== 'http:' && target.protocol !== 'https:')
			return Promise.resolve({ refused: `${target.protocol} URLs are not allowed`, durationMs: 0 });
		const host = bareHost(target.hostname);
		if (isIP(host)) {
			const reason = refusalReason(host, this.options.allowPrivate);
			if (reason) return Promise.resolve({ refused: reason, durationMs: 0 });
		}

		return new Promise((resolve) => {
			const transport = target.protocol === 'https:' ? https : http;
			const request = transport.request(target, {
				method: 'POST',
				agent: target.protocol === 'https:' ? this.httpsAgent : this.httpAgent,
				headers: { ...headers, 'content-type': 'application/json', 'content-length': body.length, 'user-agent': 'Mailroom-Webhooks/1' },
			});
			const timer = setTimeout(() => request.destroy(new Error(`timed out after ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
			const finish = (result: Omit<SendResult, 'durationMs'>) => {
				clearTimeout(timer);
				resolve({ ...result, durationMs: elapsed() });
			};
			request.on('error', (err: NodeJS.ErrnoException) => {
				if (err instanceof RefusedTargetError) return finish({ refused: err.message });
				finish({ error: err.code && !err.message.includes(err.code) ? `${err.code}: ${err.message}` : err.message });
			});
			request.on('response', (response) => {
				const statusCode = response.statusCode ?? 0;
				const chunks: Buffer[] = [];
				let kept = 0;
				response.on('data', (chunk: Buffer) => {
					if (statusCode >= 200 && statusCode < 300) return;
					if (kept < SNIPPET_BYTES) chunks.push(chunk);
					kept += chunk.length;
				});
				response.on('end', () =>
					finish({
						statusCode,
						retryAfterMs: parseRetryAfter(response.headers['retry-after']),
						bodySnippet: chunks.length ? Buffer.concat(chunks).subarray(0, SNIPPET_BYTES).toString('utf8') : undefined,
					}),
				);
				response.on('error', (err) => finish({ error: err.message }));
				response.on('close', () => {
					if (!response.complete) finish({ error: 'the connection closed before the response ended' });
				});
			});
			void writeBody(request, body);
		});
	}

	close(): void {
		this.httpAgent.destroy();
		this.httpsAgent.destroy();
	}
}
