import { afterAll, beforeAll, beforeEach, expect } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import type { StreamedString } from 'mailroom-server/dist/bytes/streamed-json';
import type { MailroomConfig } from 'mailroom-server/dist/config/settings';
import type { WebhookPayload } from 'mailroom-server/dist/payload/webhook-payload';
import type { NewSubscription, WebhookAttempt, WebhookDelivery, WebhookSubscription } from 'mailroom-server/dist/schemas/webhook';
import { startTestMailroom, type TestMailroom } from './mailroom';
import { enc } from './messages';
import { WebhookReceiver, waitFor, type ReceivedRequest } from './webhook-receiver';

/** The fields of the webhook payload that spec 2.3 shows. */
export const SPEC_PAYLOAD_FIELDS = [
	'text',
	'headers',
	'subject',
	'messageId',
	'priority',
	'from',
	'to',
	'date',
	'receivedDate',
	'originalInbox',
	'inbox',
	'domain',
	'encryptedInbox',
	'raw',
	'received',
	'_id',
	'ip',
];

/**
 * The fields of the webhook payload, no more and no fewer: spec 2.3's, then the HTML body, Cc and the attachments, then
 * what Mailroom reads of the message (who sent it, what the person wrote, codes and links) and its thread.
 */
export const PAYLOAD_FIELDS = [
	...SPEC_PAYLOAD_FIELDS,
	'html',
	'cc',
	'attachments',
	'auth',
	'strippedText',
	'strippedSignature',
	'codes',
	'links',
	'threadId',
];

/** A value as JSON carries it: a StreamedString as the string it streams. */
type AsJson<T> = T extends StreamedString ? string : T;

/** The JSON a webhook receives (spec 2.3): the payload the server builds. */
export type PayloadJson = { [Field in keyof WebhookPayload]: AsJson<WebhookPayload[Field]> };

/** The JSON body a receiver got. */
export const jsonBody = <Body = PayloadJson>(request: ReceivedRequest): Body => JSON.parse(request.body) as Body;

/** Fast retries so the schedule runs out within a test. */
export const FAST = { webhookRetrySchedule: [0, 200, 200, 200], webhookTimeout: 500 };

/** A server, a receiver for its webhooks and an account on the server. */
export interface WebhookSetup {
	server: TestMailroom;
	receiver: WebhookReceiver;
	account: { id: string; key: string };
}

/**
 * For the tests of the describe block that calls it: a server (with FAST retries unless `config` says otherwise), a
 * webhook receiver and an account named `account`, started before them and stopped after them. Before each test the
 * receiver forgets the requests it got and answers 200 again.
 */
export function webhookSetup(account = 'alice', config: Partial<MailroomConfig> = FAST): WebhookSetup {
	const setup = {} as WebhookSetup;
	beforeAll(async () => {
		setup.server = await startTestMailroom(config);
		setup.receiver = new WebhookReceiver();
		await setup.receiver.listen();
		setup.account = await setup.server.createAccount(account);
	});
	afterAll(async () => {
		await setup.server.stop();
		await setup.receiver.close();
	});
	beforeEach(() => {
		setup.receiver.requests.length = 0;
		setup.receiver.reply = () => ({ status: 200 });
	});
	return setup;
}

/** GET .../webhook-status of a message. */
export function webhookStatus(server: TestMailroom, key: string, email: string, messageId: string) {
	return server.api<WebhookDelivery>(`/api/addresses/${enc(email)}/messages/${messageId}/webhook-status`, { key });
}

/** Polls the delivery status of a message until it is `wanted`. */
export function waitForStatus(server: TestMailroom, key: string, email: string, messageId: string, wanted: WebhookDelivery['status']) {
	return waitFor(async () => {
		const response = await webhookStatus(server, key, email, messageId);
		return response.status === 200 && response.body.status === wanted ? response.body : undefined;
	}, `delivery status ${wanted}`);
}

/** Recent Activity of the key's account, newest first. */
export async function activity(server: TestMailroom, key: string, query = ''): Promise<WebhookAttempt[]> {
	const response = await server.api<WebhookAttempt[]>(`/api/webhook-activity${query}`, { key });
	expect(response.status).toBe(200);
	return response.body;
}

/** The account's webhook signing secret. */
export async function webhookSecret(server: TestMailroom, key: string): Promise<string> {
	return (await server.api<{ secret: string }>('/api/webhook-secret', { key })).body.secret;
}

/** The Standard Webhooks headers of a received request. */
export function signatureHeaders(request: ReceivedRequest): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
	return {
		'webhook-id': request.headers['webhook-id'] as string,
		'webhook-timestamp': request.headers['webhook-timestamp'] as string,
		'webhook-signature': request.headers['webhook-signature'] as string,
	};
}

/** Verifies a received request with `secret` as a receiver would (the standardwebhooks package); its payload. */
export function verifiedPayload(secret: string, request: ReceivedRequest): PayloadJson {
	return new Webhook(secret).verify(request.body, signatureHeaders(request)) as PayloadJson;
}

/** The requests a receiver got at `path`. */
export const postsTo = (receiver: WebhookReceiver, path: string) => receiver.requests.filter((request) => request.url === path);

/** Waits for the first POST to `path`. */
export const firstPost = (receiver: WebhookReceiver, path: string) => waitFor(() => postsTo(receiver, path)[0], `a POST to ${path}`);

/** Adds a webhook subscription to one of the key's addresses (POST /api/addresses/:email/webhooks); it must take. */
export async function subscribe(server: TestMailroom, key: string, email: string, body: NewSubscription): Promise<WebhookSubscription> {
	const response = await server.api<WebhookSubscription>(`/api/addresses/${enc(email)}/webhooks`, { method: 'POST', key, body });
	expect(response.status).toBe(201);
	return response.body;
}
