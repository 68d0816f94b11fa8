import { httpGet } from './http-client';

/** A waiting request's answer: the subject of the message that answered it, and when the whole answer was in. */
export interface WaitAnswer {
	subject: string;
	/** performance.now() */
	at: number;
}

/**
 * Asks the server at `httpUrl` to wait for the next message to `inbox` received at or after `since` (default: when the
 * request arrives).
 */
export async function waitForNextMessage(httpUrl: string, inbox: string, since?: Date): Promise<WaitAnswer> {
	const from = since ? `&since=${encodeURIComponent(since.toISOString())}` : '';
	const { status, body } = await httpGet(`${httpUrl}/api/addresses/${encodeURIComponent(inbox)}/wait-for-message?timeout=60000${from}`);
	const at = performance.now();
	if (status !== 200) throw new Error(`waiting at ${inbox}: ${status} ${body}`);
	return { subject: (JSON.parse(body) as { subject: string }).subject, at };
}
