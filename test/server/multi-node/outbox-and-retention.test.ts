import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Me } from 'mailroom-server/dist/schemas/account';
import type { OutgoingRecord } from 'mailroom-server/dist/schemas/outgoing';
import { query, queryValue } from '../../helpers/database';
import { dataDirs } from '../../helpers/mailroom';
import { KEY, type ServeProcess } from '../../helpers/mailroom-cli';
import {
	admin,
	killNode,
	loggedErrors,
	nodeIdOf,
	reserve,
	sendTo,
	startNode,
	startNodes,
	stopNode,
	untilInboxHolds,
} from '../../helpers/nodes';
import { startPostgres, type TestPostgres } from '../../helpers/postgres';
import { startTestRelay, type TestRelay } from '../../helpers/smtp-relay';
import { waitFor } from '../../helpers/webhook-receiver';

/**
 * The outbox and the retention sweep on two nodes of one database: each outgoing message (and forward) is relayed once,
 * its retries made by whichever node takes them (also when the node that sent it died), and the sweep runs on one node at
 * a time.
 */

const newDataDir = dataDirs();
const LEASE_MS = 2000;
/** The relay's wait before a retry: long enough to kill the sending node first. */
const RELAY_RETRY_MS = 1500;

let postgres: TestPostgres;
let databaseUrl: string;
let relay: TestRelay;
/** Recipients the relay refuses (451) the next time they come; once each. */
const refuseOnce = new Set<string>();
/** Recipients whose next attempt the relay holds open (never answering its RCPT TO); once each. */
const holdOnce = new Set<string>();
/** Recipients whose attempt the relay held. */
const held: string[] = [];
let nodes: ServeProcess[];
/** What every node is started with. */
let flags: string[];
let key: string;

const database = () => ({ config: { dataDir: '', databaseUrl } });

beforeAll(async () => {
	postgres = await startPostgres();
	databaseUrl = await postgres.newDatabase();
	relay = await startTestRelay({
		refuse: (recipient) => (refuseOnce.delete(recipient) ? { code: 451, message: '4.7.1 try again later' } : undefined),
		hold: (recipient) => (holdOnce.delete(recipient) ? (held.push(recipient), new Promise<void>(() => undefined)) : undefined),
	});
	flags = [
		...['--work-lease', `${LEASE_MS / 1000}s`, '--relay-url', relay.url, '--relay-retry', `${RELAY_RETRY_MS}ms,${RELAY_RETRY_MS}ms`],
		...['--retention-max-per-inbox', '1', '--retention-sweep-interval', '200ms'],
	];
	nodes = await startNodes(2, databaseUrl, newDataDir, flags);
	key = KEY.exec((await admin(databaseUrl, 'accounts', 'create', 'sender')).stdout)![0];
	await admin(databaseUrl, 'credits', 'add', 'sender', '50');
	await reserve(nodes[0], key, 'me@out.test');
}, 60_000);

// A new node takes the place of one a test killed, for the tests that follow.
afterEach(async () => {
	for (const [i, node] of nodes.entries())
		if (node.child.exitCode !== null || node.child.signalCode !== null) nodes[i] = await startNode(databaseUrl, newDataDir(), flags);
}, 30_000);

afterAll(async () => {
	await Promise.all((nodes ?? []).map((node) => stopNode(node)));
	await relay?.close();
	await postgres?.stop();
}, 60_000);

/** POST /api/outgoing-messages through a node. */
const send = (node: ServeProcess, to: string, subject: string) =>
	node.api<OutgoingRecord & { id: string }>('/api/outgoing-messages', {
		method: 'POST',
		key,
		body: { from: 'me@out.test', to, subject, text: subject },
	});

const outboxEntries = () => queryValue(database(), 'SELECT count(*) FROM outbox');
/** How many times the relay took mail for `recipient`. */
const relayedTo = (recipient: string) => relay.received.filter((mail) => mail.to.includes(recipient)).length;

describe('the outbox on two nodes', () => {
	// First, while the other node has never seen an entry in the outbox: nothing but its own looking can find this one.
	it('retries on the other node the message of a node killed before its retry', async () => {
		refuseOnce.add('orphan@remote.test');
		const sender = nodes[0];
		const answer = await send(sender, 'orphan@remote.test', 'orphaned');
		expect(answer.body.status).toBe('queued');
		await killNode(sender);
		const killedAt = Date.now();

		await waitFor(() => relayedTo('orphan@remote.test') === 1, 'the retry from the surviving node', RELAY_RETRY_MS + LEASE_MS + 10_000);
		expect(Date.now() - killedAt).toBeLessThan(RELAY_RETRY_MS + LEASE_MS + 3000);
		await waitFor(async () => (await outboxEntries()) === 0, 'the outbox to empty');
		const { body: records } = await nodes[1].api<OutgoingRecord[]>('/api/outgoing-messages', { key });
		expect(records.find((record) => record._id === answer.body._id)).toMatchObject({ status: 'delivered', attempts: 2 });
	});

	it('takes up on the other node, once its lease has run out, what a node killed mid-attempt was relaying', async () => {
		holdOnce.add('inflight@remote.test');
		const sender = nodes[0];
		// The client's request is cut off by the kill: it cannot know whether the message went.
		const sending = send(sender, 'inflight@remote.test', 'in flight').catch((err: Error) => err.message);
		await waitFor(() => held.includes('inflight@remote.test'), 'the relay attempt to be under way');
		const [entry] = await query<{ message_id: string; lease_node: string }>(database(), 'SELECT message_id, lease_node FROM outbox');
		expect(entry.lease_node).toBe(nodeIdOf(sender));
		await killNode(sender);
		const killedAt = Date.now();
		expect(await sending).toBe('fetch failed');

		await waitFor(() => relayedTo('inflight@remote.test') === 1, 'the attempt of the surviving node', LEASE_MS + 10_000);
		// Not before the lease ran out (renewed every third of it until the kill), and soon after.
		expect(Date.now() - killedAt).toBeGreaterThanOrEqual(LEASE_MS / 2);
		expect(Date.now() - killedAt).toBeLessThan(LEASE_MS + 3000);
		await waitFor(async () => (await outboxEntries()) === 0, 'the outbox to empty');
		const { body: records } = await nodes[1].api<OutgoingRecord[]>('/api/outgoing-messages', { key });
		expect(records.find((record) => record._id === entry.message_id)).toMatchObject({ status: 'delivered', attempts: 1 });
	});

	it('relays each message once, whichever node it was sent through; a temporary failure is retried once', async () => {
		const credits = async () => (await nodes[1].api<Me>('/api/me', { key })).body.sendsRemaining;
		const creditsBefore = await credits();
		const recipients = Array.from({ length: 8 }, (_, i) => `far${i}@remote.test`);
		// Every other one is refused at its first attempt: its retry is for either node to take.
		recipients.filter((_, i) => i % 2).forEach((recipient) => refuseOnce.add(recipient));
		const sent = await Promise.all(recipients.map((recipient, i) => send(nodes[i % 2], recipient, `to ${recipient}`)));
		expect(sent.map((answer) => [answer.status, answer.body.status])).toEqual(
			recipients.map((_, i) => [200, i % 2 ? 'queued' : 'delivered']),
		);

		await waitFor(async () => (await outboxEntries()) === 0, 'the outbox to empty', RELAY_RETRY_MS + 10_000);
		expect(recipients.map(relayedTo)).toEqual(recipients.map(() => 1));
		const { body: records } = await nodes[1].api<OutgoingRecord[]>('/api/outgoing-messages?limit=100', { key });
		expect(sent.map((answer) => records.find((record) => record._id === answer.body._id))).toEqual(
			recipients.map((_, i) => expect.objectContaining({ status: 'delivered', attempts: i % 2 ? 2 : 1 })),
		);
		expect(await credits()).toBe(creditsBefore - recipients.length);
	});
});

describe('the retention sweep on two nodes', () => {
	it('runs on one node at a time: the inbox ends with its newest message, and neither node logs an error', async () => {
		const count = 20;
		for (let i = 0; i < count; i++) await sendTo(nodes[i % 2], { to: 'kept@sweep.test', subject: `message ${i}` });
		const [kept] = await untilInboxHolds(nodes[0], 'kept@sweep.test', 1);
		expect(kept.subject).toBe(`message ${count - 1}`);
		expect((await nodes[1].inbox('kept@sweep.test')).map((message) => message._id)).toEqual([kept._id]);
		const deletedBy = (node: ServeProcess) =>
			node.output
				.split('\n')
				.filter((line) => line.includes('"retention sweep deleted messages"'))
				.reduce((sum, line) => sum + (JSON.parse(line) as { overflow: number }).overflow, 0);
		// Each message was deleted once, by one node or the other.
		expect(deletedBy(nodes[0]) + deletedBy(nodes[1])).toBe(count - 1);
		for (const node of nodes) expect(loggedErrors(node)).toEqual([]);
	});
});

describe('forwards on two nodes', () => {
	it('forwards each message once, whichever node received it', async () => {
		await reserve(nodes[1], key, 'fwd@out.test', { forward: 'onward@remote.test' });
		const subjects = Array.from({ length: 6 }, (_, i) => `forwarded ${i}`);
		for (const [i, subject] of subjects.entries()) await sendTo(nodes[i % 2], { to: 'fwd@out.test', subject });

		await waitFor(() => relayedTo('onward@remote.test') >= subjects.length, 'every forward to be relayed');
		await waitFor(async () => (await outboxEntries()) === 0, 'the outbox to empty');
		const forwarded = relay.received.filter((mail) => mail.to.includes('onward@remote.test')).map((mail) => mail.parsed.subject);
		expect(forwarded.sort()).toEqual(subjects);
	});
});
