import { expect } from '@jest/globals';
import type Mail from 'nodemailer/lib/mailer';
import type { ApiResponse, TestMailroom } from './mailroom';

/** Sends one message over SMTP; returns the record ids, one per recipient, in RCPT order. */
export async function sendMail(server: TestMailroom, mail: Mail.Options): Promise<string[]> {
	const info = await server.send({ from: 'sender@sender.test', subject: 'hello', text: 'hello', ...mail });
	return /stored as (.+)$/.exec(info.response)![1].split(' ');
}

/** Sends a raw message (its bytes as they are) to `inbox` over SMTP. */
export async function sendRawTo(server: TestMailroom, inbox: string, raw: Buffer, from = 'bodies@sender.test'): Promise<void> {
	await server.send({ envelope: { from, to: [inbox] }, raw });
}

/** A copy of `object` without `keys`: what two records of the same message have in common. */
export function omit<T extends object, K extends keyof T>(object: T, ...keys: K[]): Omit<T, K> {
	const copy: Partial<T> = { ...object };
	for (const key of keys) delete copy[key];
	return copy as Omit<T, K>;
}

/**
 * Every error the API gives has exactly this shape: `{ error, message }`, and `field` when a 400 is about one field of the
 * body or the query (`field` given: it names that one).
 */
export function expectError(response: ApiResponse, status: number, message: RegExp = /./, field?: string): void {
	const body = response.body as { field?: unknown } | undefined;
	expect({ status: response.status, body: response.body }).toEqual({
		status,
		body: {
			error: expect.any(String),
			message: expect.stringMatching(message),
			...(field !== undefined || body?.field !== undefined ? { field: field ?? expect.any(String) } : {}),
		},
	});
}

export const enc = encodeURIComponent;

/** Resolves once the clock has left the current millisecond, so mail stored before counts as received before what follows. */
export async function nextMillisecond(): Promise<void> {
	const now = Date.now();
	while (Date.now() === now) await new Promise((resolve) => setTimeout(resolve, 1));
}
