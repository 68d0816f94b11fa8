import { expect } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import type { AddressObject } from 'mailroom-server/dist/schemas/message';
import type { ForwardingRecord } from 'mailroom-server/dist/schemas/address';
import type { WebhookAttempt, WebhookDelivery } from 'mailroom-server/dist/schemas/webhook';
import type { TestMailroom } from './mailroom';
import { enc } from './messages';
import { waitFor, type ReceivedRequest, type WebhookReceiver } from './webhook-receiver';

/** The fields of the webhook payload (spec 2.3), no more and no fewer. */
export const PAYLOAD_FIELDS = [
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

/** The JSON a webhook receives (spec 2.3). */
export interface PayloadJson {
	text: string;
	headers: Record<string, string>;
	subject: string;
	messageId: string;
	priority: string;
	from: AddressObject[];
	to: AddressObject[];
	date: string;
	receivedDate: string;
	originalInbox: string;
	inbox: string;
	domain: string;
	encryptedInbox: string;
	raw: string;
	received: string;
	_id: string;
	ip: string;
}

/** The JSON body a receiver got. */
export const jsonBody = <Body = PayloadJson>(request: ReceivedRequest): Body => JSON.parse(request.body) as Body;

/** Fast retries so the schedule runs out within a test. */
export const FAST = { webhookRetrySchedule: [0, 200, 200, 200], webhookTimeout: 500 };

/** Reserves `email` for the key's account and points its webhook at `url`. */
export async function withWebhook(server: TestMailroom, key: string, email: string, url: string): Promise<void> {
	expect((await server.api(`/api/addresses/${enc(email)}`, { method: 'POST', key })).status).toBe(200);
	const put = await server.api<ForwardingRecord>(`/api/private-address-forwarding/${enc(email)}`, {
		method: 'PUT',
		key,
		body: { webhook: url },
	});
	expect(put.status).toBe(200);
	expect(put.body.webhook).toBe(url);
}

/** Sends one message over SMTP; the id of its record. */
export async function deliveredMessageId(server: TestMailroom, to: string, subject = 'hi'): Promise<string> {
	const info = await server.send({ from: 'sender@example.org', to, subject, text: 'body' });
	return /stored as (\S+)/.exec(info.response)![1];
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

/** Reserves `email` for the key's account with these forwarding settings (POST /api/addresses/:email). */
export function reserveWith(server: TestMailroom, key: string, email: string, body: Record<string, unknown>) {
	return server.api<ForwardingRecord>(`/api/addresses/${enc(email)}`, { method: 'POST', key, body });
}

/** The requests a receiver got at `path`. */
export const postsTo = (receiver: WebhookReceiver, path: string) => receiver.requests.filter((request) => request.url === path);

/** Waits for the first POST to `path`. */
export const firstPost = (receiver: WebhookReceiver, path: string) => waitFor(() => postsTo(receiver, path)[0], `a POST to ${path}`);
