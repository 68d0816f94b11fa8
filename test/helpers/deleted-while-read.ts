import { expect } from '@jest/globals';
import http from 'node:http';
import type { TestMailroom } from './mailroom';

/** What a client saw of a response whose message was deleted while it was read. */
export interface CutResponse {
	status: number;
	contentLength: number;
	received: number;
	/** Whether node:http saw the whole body (as many bytes as Content-Length said). */
	complete: boolean;
}

/**
 * GETs `path`, takes the first bytes of the body (proof that it has begun), then reads nothing more until the message
 * `id` of `inbox` is deleted, and then reads on until the connection ends. The body must be larger than the kernel's
 * socket buffers hold, or the server has read it all before the message goes.
 */
export async function readWhileDeleted(server: TestMailroom, path: string, inbox: string, id: string): Promise<CutResponse> {
	const response = await new Promise<http.IncomingMessage>((resolve, reject) =>
		http.get(`${server.httpUrl}${path}`, resolve).on('error', reject),
	);
	let received = 0;
	response.on('error', () => {}); // the cut connection: seen below as an incomplete response
	const begun = new Promise((resolve) => response.once('data', resolve));
	response.on('data', (chunk: Buffer) => (received += chunk.length));
	await begun;
	response.pause();
	expect((await server.api(`/api/addresses/${inbox}/messages/${id}`, { method: 'DELETE' })).status).toBe(200);
	const closed = new Promise((resolve) => response.once('close', resolve));
	response.resume();
	await closed;
	return { status: response.statusCode!, contentLength: Number(response.headers['content-length']), received, complete: response.complete };
}
