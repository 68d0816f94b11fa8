import { expect } from '@jest/globals';
import type { Me } from 'mailroom-server/dist/schemas/account';
import type { OutgoingRecord } from 'mailroom-server/dist/schemas/outgoing';
import type { TestMailroom } from './mailroom';

/** The answer to POST /api/outgoing-messages. */
export type Sent = OutgoingRecord & { id: string; creditsRemaining: number; warnings: string[] };

/** An account with `credits` that owns `address` (reserved through the API). */
export async function senderAccount(server: TestMailroom, name: string, address: string, credits: number) {
	const account = server.createAccount(name, credits);
	expect((await server.api(`/api/addresses/${address}`, { method: 'POST', key: account.key })).status).toBe(200);
	return account;
}

/** The outgoing-message credits the key's account has left. */
export const credits = async (server: TestMailroom, key: string) => (await server.api<Me>('/api/me', { key })).body.sendsRemaining;

/** POST /api/outgoing-messages with `key` in the Service-Key header (none when undefined); `Body` is the answer expected. */
export const postOutgoing = <Body = Sent>(server: TestMailroom, key: string | undefined, body: unknown) =>
	server.api<Body>('/api/outgoing-messages', { method: 'POST', key, body });

/** GET /api/outgoing-messages: the account's sent mail, newest first. */
export const listOutgoing = async (server: TestMailroom, key: string) =>
	(await server.api<OutgoingRecord[]>('/api/outgoing-messages', { key })).body;
