import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { dataDirs } from '../../helpers/mailroom';
import { type ServeProcess } from '../../helpers/mailroom-cli';
import { enc } from '../../helpers/messages';
import { loggedErrors, reserve, sendTo, startNode, stopNode } from '../../helpers/nodes';
import { startOwnPostgres, type OwnPostgres } from '../../helpers/postgres';
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
