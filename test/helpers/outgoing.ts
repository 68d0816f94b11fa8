import { afterAll, beforeAll, expect } from '@jest/globals';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { Me } from 'mailroom-server/dist/schemas/account';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { OutgoingRecord } from 'mailroom-server/dist/schemas/outgoing';
import { startTestMailroom, type TestMailroom } from './mailroom';
import { enc } from './messages';
import { startTestRelay, type TestRelay } from './smtp-relay';

/** The answer to POST /api/outgoing-messages. */
export type Sent = OutgoingRecord & { id: string; creditsRemaining: number; warnings: string[] };

/** The report fields of a sent recipient no delivery report has spoken of (and without a return path: not relayed). */
export const NO_REPORT = { returnPath: null, statusCode: null, diagnostic: null, reportingMta: null, bounceMessageId: null };

/** An account with `credits` that owns `address` (reserved through the API). */
export async function senderAccount(server: TestMailroom, name: string, address: string, credits: number) {
	const account = await server.createAccount(name, credits);
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

/** A copy of sent mail in a local inbox: its record, its raw source, and that source parsed as a mail client would. */
export interface ReceivedCopy {
	record: MessageRecord;
	raw: Buffer;
	parsed: ParsedMail;
}

/** The newest message of `inbox` (readable with `key`, or public), read as a mail client would read it. */
export async function receivedCopy(server: TestMailroom, inbox: string, key?: string): Promise<ReceivedCopy> {
	const list = await server.api<MessageRecord[]>(`/api/addresses/${enc(inbox)}/messages`, { key });
	expect(list.status).toBe(200);
	expect(list.body.length).toBeGreaterThan(0);
	const record = list.body[0];
	const response = await fetch(`${server.httpUrl}/api/raw/${enc(inbox)}/${record._id}`, { headers: key ? { 'Service-Key': key } : {} });
	expect(response.status).toBe(200);
	const raw = Buffer.from(await response.arrayBuffer());
	return { record, raw, parsed: await simpleParser(raw) };
}

/** The bytes of one attachment of a stored message, by its checksum, as the attachments API serves them. */
export async function attachmentBytes(server: TestMailroom, inbox: string, id: string, checksum: string, key?: string): Promise<Buffer> {
	const response = await fetch(`${server.httpUrl}/api/addresses/${enc(inbox)}/messages/${id}/attachments/${checksum}`, {
		headers: key ? { 'Service-Key': key } : {},
	});
	expect(response.status).toBe(200);
	return Buffer.from(await response.arrayBuffer());
}

/** An RFC 5322 date-time (section 3.3) as Mailroom writes it: day of week, date, time with seconds, numeric zone. */
export const RFC_5322_DATE =
	/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d [+-]\d{4}$/;
