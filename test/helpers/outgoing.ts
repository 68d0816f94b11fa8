import { afterAll, beforeAll, expect } from '@jest/globals';
import type { Me } from 'mailroom-server/dist/schemas/account';
import type { OutgoingRecord } from 'mailroom-server/dist/schemas/outgoing';
import { startTestMailroom, type TestMailroom } from './mailroom';
import { startTestRelay, type TestRelay } from './smtp-relay';

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

/** A relay and a server that sends through it, with an account to send from. */
export interface SendingSetup {
	relay: TestRelay;
	server: TestMailroom;
	/** Owns alice@local.test and has 1000 credits. */
	alice: { id: string; key: string };
}

/**
 * For the tests of the describe block that calls it: a relay that refuses recipients named bounce@ (550) and takes
 * the rest, a server for local.test that relays other domains to it (retrying after 50 ms), and alice's account;
 * started before the tests and stopped after them.
 */
export function sendingSetup(): SendingSetup {
	const setup = {} as SendingSetup;
	beforeAll(async () => {
		setup.relay = await startTestRelay({
			refuse: (rcpt) => (rcpt.startsWith('bounce@') ? { code: 550, message: 'No such user here' } : undefined),
		});
		setup.server = await startTestMailroom({ domains: ['local.test'], relayUrl: setup.relay.url, relayRetryDelays: [50, 50, 50] });
		setup.alice = await senderAccount(setup.server, 'alice', 'alice@local.test', 1000);
	});
	afterAll(async () => {
		await setup.server.stop();
		await setup.relay.close();
	});
	return setup;
}
