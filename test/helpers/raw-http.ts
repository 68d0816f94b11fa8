import http from 'node:http';
import type { TestMailroom } from './mailroom';

/**
 * Answers as they come over the wire rather than parsed: a route's bytes with the headers that describe them; and
 * requests sent with node:http, whose path goes out exactly as written (fetch would normalise dot segments and
 * escapes), for hostile paths, bodies and queries, with what a refusal of them must look like.
 */

/** A route's answer as the bytes sent, with the headers that describe them. */
export interface RawResponse {
	status: number;
	contentType: string | null;
	contentLength: string | null;
	bytes: Buffer;
}

/** GETs `path` from the server; the answer as the bytes sent. */
export async function fetchRaw(server: TestMailroom, path: string): Promise<RawResponse> {
	const response = await fetch(`${server.httpUrl}${path}`);
	return {
		status: response.status,
		contentType: response.headers.get('content-type'),
		contentLength: response.headers.get('content-length'),
		bytes: Buffer.from(await response.arrayBuffer()),
	};
}

export interface RawAnswer {
	status: number;
	contentType: string;
	text: string;
}

export function rawRequest(
	port: number,
	method: string,
	path: string,
	options: { key?: string; body?: Buffer | string; contentType?: string } = {},
): Promise<RawAnswer> {
	return new Promise((resolve, reject) => {
		const headers: Record<string, string> = {};
		if (options.key) headers['Service-Key'] = options.key;
		if (options.body !== undefined) headers['Content-Type'] = options.contentType ?? 'application/json';
		const req = http.request({ host: '127.0.0.1', port, method: method.toUpperCase(), path, headers }, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (chunk: Buffer) => chunks.push(chunk));
			res.on('end', () =>
				resolve({
					status: res.statusCode!,
					contentType: String(res.headers['content-type'] ?? ''),
					text: Buffer.concat(chunks).toString(),
				}),
			);
		});
		req.on('error', reject);
		req.end(options.body);
	});
}

/** Why an answer is unacceptable, or undefined when it is a clean 4xx error: the `{ error, message }` JSON body (`field` too on some 400s), no stack trace. */
export function fault(answer: RawAnswer): string | undefined {
	if (answer.status < 400 || answer.status > 499) return `status ${answer.status}`;
	if (!answer.contentType.startsWith('application/json')) return `content type ${answer.contentType}`;
	const body = JSON.parse(answer.text) as Record<string, unknown>;
	// `field`: a 400 about one body field or query parameter names it.
	const keys = Object.keys(body).sort().join();
	if (keys !== 'error,message' && !(keys === 'error,field,message' && typeof body.field === 'string')) return `body ${answer.text}`;
	if (typeof body.error !== 'string' || typeof body.message !== 'string') return `body ${answer.text}`;
	if (/\n\s+at |node_modules|\/dist\/|\.js:\d+/.test(answer.text)) return `stack trace ${answer.text}`;
	return undefined;
}

/** GETs each path (meant to climb out of a static folder); what was wrong with each answer: a file served, or not a clean 4xx. */
export async function traversalFaults(port: number, paths: string[]): Promise<string[]> {
	const faults: string[] = [];
	for (const path of paths) {
		const answer = await rawRequest(port, 'get', path);
		if (answer.text.includes('"name": "n8n-nodes-mailroom"') || answer.text.includes('root:') || answer.text.startsWith('SQLite format'))
			faults.push(`${path}: served a file`);
		const problem = fault(answer);
		if (problem) faults.push(`${path}: ${problem}`);
	}
	return faults;
}
