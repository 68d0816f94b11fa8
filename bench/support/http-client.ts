import { Agent, get } from 'node:http';

// node:http over kept-alive connections: fetch (undici) costs the client about a millisecond of its own per request, which
// would be counted as the server's latency.
const agent = new Agent({ keepAlive: true });

/** GETs `url` over a kept-alive connection; resolves with the status and the whole body. */
export function httpGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
	return new Promise((resolve, reject) => {
		get(url, { agent, headers }, (response) => {
			const chunks: Buffer[] = [];
			response.on('data', (chunk: Buffer) => chunks.push(chunk));
			response.on('end', () => resolve({ status: response.statusCode!, body: Buffer.concat(chunks).toString() }));
			response.on('error', reject);
		}).on('error', reject);
	});
}
