import http from 'node:http';
import https from 'node:https';
import { RefusedTargetError, checkedLookup, systemResolver, urlRefusal, type PrivateTargets, type Resolver } from './target-policy';
import type { PiecedBody } from '../bytes/pieced-body';
import { ByteHead } from '../bytes/byte-head';

/**
 * Of a response body, this much is kept for Recent Activity. Once more has come, the rest is not read: the connection is
 * closed (a receiver answering a gigabyte would be read in full on every attempt).
 */
export const RESPONSE_BODY_KEPT = 16 * 1024;

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
	/** The request's headers as sent; absent when the policy refused the target, so nothing was. */
	requestHeaders?: [string, string][];
	/** The response's headers and the start of its body; absent when none came whole. */
	response?: { headers: [string, string][]; body: { head: Buffer; bytes: number } };
}

export interface WebhookSenderOptions {
	timeoutMs: number;
	resolver?: Resolver;
}

/** The keep-alive agents of one SSRF rule: a pooled connection is reused only by requests under the rule it was checked by. */
interface Agents {
	http: http.Agent;
	https: https.Agent;
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

/**
 * POSTs webhook bodies. Keep-alive agents whose `lookup` enforces the SSRF policy on the address
 * actually connected to; IP literals (which skip lookup) are checked before connecting.
 * Redirects are never followed: node:http does not follow them.
 */
export class WebhookSender {
	private readonly agents = new Map<PrivateTargets, Agents>();

	constructor(private readonly options: WebhookSenderOptions) {}

	/** POSTs `body` to `url`, reaching private addresses only as `privateTargets` says (see TargetPolicy). */
	send(url: string, body: PiecedBody, headers: Record<string, string>, privateTargets: PrivateTargets): Promise<SendResult> {
		const started = performance.now();
		const elapsed = () => Math.round(performance.now() - started);
		const refused = urlRefusal(url, privateTargets);
		if (refused) return Promise.resolve({ refused, durationMs: 0 });
		const target = new URL(url);
		const agents = this.agentsFor(privateTargets);

		return new Promise((resolve) => {
			const transport = target.protocol === 'https:' ? https : http;
			const request = transport.request(target, {
				method: 'POST',
				agent: target.protocol === 'https:' ? agents.https : agents.http,
				headers: { ...headers, 'content-type': 'application/json', 'content-length': body.length, 'user-agent': 'Mailroom-Webhooks/1' },
			});
			const requestHeaders = request.getRawHeaderNames().map((name): [string, string] => [name, String(request.getHeader(name))]);
			const timer = setTimeout(() => request.destroy(new Error(`timed out after ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
			const finish = (result: Omit<SendResult, 'durationMs' | 'requestHeaders'>) => {
				clearTimeout(timer);
				resolve({ ...result, durationMs: elapsed(), ...(result.refused ? {} : { requestHeaders }) });
			};
			request.on('error', (err: NodeJS.ErrnoException) => {
				if (err instanceof RefusedTargetError) return finish({ refused: err.message });
				finish({ error: err.code && !err.message.includes(err.code) ? `${err.code}: ${err.message}` : err.message });
			});
			request.on('response', (response) => {
				const statusCode = response.statusCode ?? 0;
				const headers = pairs(response.rawHeaders);
				const kept = new ByteHead(RESPONSE_BODY_KEPT);
				const answered = () => {
					const { head, bytes } = kept.result();
					// Its whole size: as declared when the rest was not read, else as counted.
					const declared = Number(response.headers['content-length']);
					const body = { head, bytes: kept.overflowed && declared > bytes ? declared : bytes };
					const failed = statusCode < 200 || statusCode >= 300;
					finish({
						statusCode,
						retryAfterMs: parseRetryAfter(response.headers['retry-after']),
						bodySnippet: failed && body.head.length ? body.head.subarray(0, SNIPPET_BYTES).toString('utf8') : undefined,
						response: { headers, body },
					});
				};
				response.on('data', (chunk: Buffer) => {
					kept.add(chunk);
					if (!kept.overflowed) return;
					answered();
					request.destroy(); // the rest unread; the connection is not reused
				});
				response.on('end', answered);
				response.on('error', (err) => finish({ error: err.message }));
				response.on('close', () => {
					if (!response.complete) finish({ error: 'the connection closed before the response ended' });
				});
			});
			void writeBody(request, body);
		});
	}

	close(): void {
		for (const agents of this.agents.values()) {
			agents.http.destroy();
			agents.https.destroy();
		}
	}

	private agentsFor(privateTargets: PrivateTargets): Agents {
		let agents = this.agents.get(privateTargets);
		if (!agents) {
			const lookup = checkedLookup(privateTargets, this.options.resolver ?? systemResolver);
			agents = { http: new http.Agent({ keepAlive: true, lookup }), https: new https.Agent({ keepAlive: true, lookup }) };
			this.agents.set(privateTargets, agents);
		}
		return agents;
	}
}

/** Node's raw header list ([name, value, name, value…]) as pairs, in the order they came. */
function pairs(raw: string[]): [string, string][] {
	const result: [string, string][] = [];
	for (let i = 0; i + 1 < raw.length; i += 2) result.push([raw[i], raw[i + 1]]);
	return result;
}
