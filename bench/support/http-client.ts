import { Agent, request } from 'node:http';

// node:http over kept-alive connections: fetch (undici) costs the client about a millisecond of its own per request, which
// would be counted as the server's latency. It also waits as long as the server takes (fetch gives up after 300 s without
// an answer, less than claiming a domain of a million messages can take).
const agent = new Agent({ keepAlive: true });

type Answer = { status: number; body: string };

/** Sends a request without a body to `url` over a kept-alive connection; resolves with the status and the whole body. */
function send(method: 'GET' | 'POST', url: string, headers: Record<string, string>): Promise<Answer> {
	return new Promise((resolve, reject) => {
		request(url, { method, agent, headers }, (response) => {
			const chunks: Buffer[] = [];
			response.on('data', (chunk: Buffer) => chunks.push(chunk));
			response.on('end', () => resolve({ status: response.statusCode!, body: Buffer.concat(chunks).toString() }));
			response.on('error', reject);
		})
			.on('error', reject)
			.end();
	});
}

export const httpGet = (url: string, headers: Record<string, string> = {}) => send('GET', url, headers);

export const httpPost = (url: string, headers: Record<string, string> = {}) => send('POST', url, headers);
