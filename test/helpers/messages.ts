import { expect } from '@jest/globals';
import type Mail from 'nodemailer/lib/mailer';
import type { ApiResponse, TestMailroom } from './mailroom';

/** Sends one message over SMTP; returns the record ids, one per recipient, in RCPT order. */
export async function sendMail(server: TestMailroom, mail: Mail.Options): Promise<string[]> {
	const info = await server.send({ from: 'sender@sender.test', subject: 'hello', text: 'hello', ...mail });
	return /stored as (.+)$/.exec(info.response)![1].split(' ');
}

/** Every error the API gives has exactly this shape. */
export function expectError(response: ApiResponse, status: number, message: RegExp = /./): void {
	expect({ status: response.status, body: response.body }).toEqual({
		status,
		body: { error: expect.any(String), message: expect.stringMatching(message) },
	});
}

export const enc = encodeURIComponent;
