import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { OutgoingRecord } from 'mailroom-server/dist/schemas/outgoing';
import type { WebhookDelivery } from 'mailroom-server/dist/schemas/webhook';
import { dataDirs } from '../../helpers/mailroom';
import { type ServeProcess } from '../../helpers/mailroom-cli';
import { enc } from '../../helpers/messages';
import { admin, loggedErrors, reserve, sendTo, startNode, stopNode } from '../../helpers/nodes';
import { startOwnPostgres, type OwnPostgres } from '../../helpers/postgres';
import { startTestRelay } from '../../helpers/smtp-relay';
import { WebhookReceiver, waitFor } from '../../helpers/webhook-receiver';

/**
 * Two nodes whose PostgreSQL goes away for a while: they refuse what they cannot store (SMTP 451, API 503) rather than
 * acknowledge it, and serve again, without a restart, once it is back; what they acknowledged before is all there.
 */

const newDataDir = dataDirs();

let postgres: OwnPostgres;
let receiver: WebhookReceiver;
let nodes: ServeProcess[];
let key: string;

beforeAll(async () => {
	postgres = await startOwnPostgres();
	const databaseUrl = await postgres.newDatabase();
	nodes = [await startNode(databaseUrl, newDataDir())];
	key = await nodes[0].key();
	nodes.push(await startNode(databaseUrl, newDataDir()));
	receiver = new WebhookReceiver();
	await receiver.listen();
	await reserve(nodes[0], key, 'kept@outage.test', { webhook: `${receiver.url}/hook` });
}, 60_000);

afterAll(async () => {
	await Promise.all((nodes ?? []).map((node) => stopNode(node)));
	await receiver?.close();
	await postgres?.stop();
}, 60_000);

const INBOX = `/api/addresses/${enc('kept@outage.test')}/messages`;

/** The subjects of the inbox, read through a node. */
const subjects = async (node: ServeProcess) =>
	(await node.api<MessageRecord[]>(`${INBOX}?limit=1000`, { key })).body.map((message) => message.subject).sort();

describe('the database going away', () => {
	it('gets 451 and 503 while it is away; then both nodes serve again without a restart, and nothing acknowledged is lost', async () => {
		// Mail goes to both nodes all along, one message after another on each: some before the halt, some while it happens.
		const acknowledged: string[] = [];
		const refused: string[] = [];
		let sending = true;
		const sendAll = async (node: ServeProcess, name: string) => {
			for (let i = 0; sending; i++) {
				const subject = `${name} ${i}`;
				try {
					await sendTo(node, { to: 'kept@outage.test', subject });
					acknowledged.push(subject);
				} catch (err) {
					// A message it cannot store is refused for now (the sender tries again later), never acknowledged.
					expect(err).toMatchObject({ responseCode: 451 });
					refused.push(subject);
				}
			}
		};
		const senders = nodes.map((node, i) => sendAll(node, `node${i}`));
		try {
			await waitFor(() => acknowledged.length >= 10, 'mail stored before the halt');
			await postgres.halt();
			await waitFor(() => nodes.every((_, i) => refused.some((subject) => subject.startsWith(`node${i} `))), 'both nodes to refuse mail');
		} finally {
			sending = false;
			await Promise.all(senders);
		}
		for (const node of nodes) {
			for (const headers of [{}, { 'Service-Key': key }]) {
				const response = await fetch(`${node.httpUrl}${INBOX}`, { headers });
				expect(response.status).toBe(503);
				expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
				expect(await response.json()).toEqual({ error: 'Service Unavailable', message: expect.stringMatching(/database/) });
			}
		}

		await postgres.resume();
		await waitFor(
			async () => (await Promise.all(nodes.map((node) => node.api(INBOX, { key })))).every((response) => response.status === 200),
			'both nodes to answer again',
			20_000,
		);
		for (const [i, node] of nodes.entries()) await sendTo(node, { to: 'kept@outage.test', subject: `after ${i}` });
		// Every message acknowledged is there (one refused may be too: stored, its 250 lost with the connection).
		for (const node of nodes) {
			const stored = await subjects(node);
			expect(stored).toEqual(expect.arrayContaining([...acknowledged, 'after 0', 'after 1']));
			expect(new Set(stored).size).toBe(stored.length);
		}
		// And so is its webhook delivery, though the database went away while some were being made.
		const delivered = () => new Set(receiver.requests.map((request) => (JSON.parse(request.body) as { subject: string }).subject));
		await waitFor(() => acknowledged.every((subject) => delivered().has(subject)), 'the webhook of every message acknowledged', 20_000);

		// The nodes hear each other again (they connect again, waiting longer after each failure): mail one stores wakes the other.
		await waitFor(
			() => nodes.every((node) => node.output.includes('hearing the other nodes again')),
			'both nodes to hear the others',
			20_000,
		);
		const waiting = nodes[1].api<MessageRecord>(`${INBOX.replace('/messages', '/wait-for-message')}?subject=woken&timeout=20000`, { key });
		await new Promise((resolve) => setTimeout(resolve, 500)); // for the wait to be registered first
		const [id] = await sendTo(nodes[0], { to: 'kept@outage.test', subject: 'woken across' });
		expect(await waiting).toMatchObject({ status: 200, body: { _id: id } });

		// The one error logged: a webhook attempt made as the database went away, whose outcome could not be recorded (it is
		// made again once its lease runs out: at least once).
		for (const node of nodes) {
			expect(loggedErrors(node).filter((line) => !line.includes('"webhook attempt could not be recorded; retrying later"'))).toEqual([]);
		}
	}, 90_000);
});

describe('work under way as the database goes away', () => {
	it('is made again soon after it is back, not once its lease has run out', async () => {
		// One node of its own, on the default lease (60 s): a retry that waited for the lease would come far too late here.
		const databaseUrl = await postgres.newDatabase();
		let releaseRelay!: () => void;
		const relayHeld = new Promise<void>((resolve) => (releaseRelay = resolve));
		let relayAttempts = 0;
		const relay = await startTestRelay({ hold: () => (++relayAttempts === 1 ? relayHeld : undefined) });
		const hooks = new WebhookReceiver();
		await hooks.listen();
		// The first webhook request is answered after the database has gone away, so its outcome cannot be recorded.
		hooks.reply = (_request, index) => (index === 0 ? { status: 200, delayMs: 3000 } : { status: 200 });
		const node = await startNode(databaseUrl, newDataDir(), ['--relay-url', relay.url]);
		try {
			// The admin's account, as only an admin may have webhooks sent to 127.0.0.1.
			const senderKey = await node.key();
			await admin(databaseUrl, 'credits', 'add', 'admin', '5');
			await reserve(node, senderKey, 'busy@outage.test', { webhook: `${hooks.url}/hook` });
			// The outgoing message's first attempt is held at the relay; the request answers once the attempt is over.
			const sending = node
				.api<OutgoingRecord>('/api/outgoing-messages', {
					method: 'POST',
					key: senderKey,
					body: { from: 'busy@outage.test', to: 'far@remote.test', subject: 'relayed', text: 'relayed' },
				})
				.catch((err: Error) => err);
			// Both under way before the database goes away: the relay attempt first, as it is held until released; then the
			// webhook request, answered 3 s after it arrives.
			await waitFor(() => relayAttempts === 1, 'the relay attempt to be under way');
			const [messageId] = await sendTo(node, { to: 'busy@outage.test', subject: 'hooked' });
			await waitFor(() => hooks.requests.length === 1, 'the webhook attempt to be under way');

			await postgres.halt();
			releaseRelay();
			await waitFor(() => relay.received.length === 1, 'the relay to take the message');
			await waitFor(
				() =>
					['webhook attempt could not be recorded', 'outgoing delivery attempt failed'].every((error) =>
						loggedErrors(node).some((line) => line.includes(error)),
					),
				'both attempts to fail to be recorded',
			);
			await sending;
			await postgres.resume();

			// At least once: each is made again (the receiver and the relay see it twice) and then recorded.
			await waitFor(() => hooks.requests.length === 2, 'the webhook attempt made again', 20_000);
			await waitFor(() => relay.received.length === 2, 'the relay attempt made again', 20_000);
			const hookStatus = `/api/addresses/${enc('busy@outage.test')}/messages/${messageId}/webhook-status`;
			await waitFor(
				async () => (await node.api<WebhookDelivery>(hookStatus, { key: senderKey })).body.status === 'delivered',
				'the webhook delivery recorded delivered',
			);
			await waitFor(
				async () => (await node.api<OutgoingRecord[]>('/api/outgoing-messages', { key: senderKey })).body[0]?.status === 'delivered',
				'the outgoing message recorded delivered',
			);
		} finally {
			await stopNode(node);
			await relay.close();
			await hooks.close();
		}
	}, 90_000);
});
