import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
	method: string;
	url: string;
	headers: http.IncomingHttpHeaders;
	body: string;
	/** The status the receiver answered with. */
	status: number;
}

export interface Reply {
	status: number;
	headers?: Record<string, string>;
	body?: string;
	/** Wait this long before answering (for timeouts). */
	delayMs?: number;
	/** Answer once this settles (a request held until an event of the test). */
	until?: Promise<unknown>;
}

/** A real HTTP webhook receiver on 127.0.0.1; `reply` decides each answer (200 by default). */
export class WebhookReceiver {
	readonly requests: ReceivedRequest[] = [];
	reply: (request: ReceivedRequest, index: number) => Reply = () => ({ status: 200 });
	private readonly server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const request: ReceivedRequest = {
				method: req.method ?? '',
				url: req.url ?? '',
				headers: req.headers,
				body: Buffer.concat(chunks).toString('utf8'),
				status: 0,
			};
			const answer = this.reply(request, this.requests.length);
			request.status = answer.status;
			this.requests.push(request);
			const send = () => {
				if (res.destroyed) return;
				res.writeHead(answer.status, answer.headers);
				res.end(answer.body ?? '');
			};
			if (answer.until) void answer.until.then(send, send);
			else if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
			else send();
		});
	});

	/** Listens on `port` (0: a free one); resolves to the base URL. */
	async listen(port = 0): Promise<string> {
		await new Promise<void>((resolve, reject) => {
			this.server.once('error', reject);
			this.server.listen(port, '127.0.0.1', () => resolve());
		});
		return this.url;
	}

	get port(): number {
		return (this.server.address() as AddressInfo).port;
	}

	get url(): string {
		return `http://127.0.0.1:${this.port}`;
	}

	async close(): Promise<void> {
		this.server.closeAllConnections();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}
}

/** Polls `check` until it returns something truthy; fails after `timeoutMs`. */
export async function waitFor<T>(check: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<NonNullable<T>> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
}
