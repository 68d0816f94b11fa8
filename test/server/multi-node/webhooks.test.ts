import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { WebhookAttempt } from 'mailroom-server/dist/schemas/webhook';
import { query, queryValue } from '../../helpers/database';
import { dataDirs } from '../../helpers/mailroom';
import { KEY, type ServeProcess } from '../../helpers/mailroom-cli';
import { enc } from '../../helpers/messages';
import { admin, killNode, loggedErrors, nodeIdOf, reserve, sendTo, startNodes, stopNode } from '../../helpers/nodes';
import { startPostgres, type TestPostgres } from '../../helpers/postgres';
import { WebhookReceiver, waitFor, type ReceivedRequest } from '../../helpers/webhook-receiver';

/**
 * Webhook deliveries on two nodes of one database: each is made by one node at a time (claimed under a lease), so a
 * receiver gets each once; and those of a node killed mid-attempt are taken up by the other once their lease has run out.
 */

const newDataDir = dataDirs();
/** How long a node holds a delivery it took: short, so the survivor of a kill takes its work up soon. */
const LEASE_MS = 2000;

let postgres: TestPostgres;
let databaseUrl: string;
let receiver: WebhookReceiver;
let nodes: ServeProcess[];
let key: string;

/** The database as the tests read it (the nodes' data folders hold only their spools). */
const database = () => ({ config: { dataDir: '', databaseUrl } });

beforeAll(async () => {
	postgres = await startPostgres();
	databaseUrl = await postgres.newDatabase();
	receiver = new WebhookReceiver();
	await receiver.listen();
	// Two requests at once per host: of the deliveries a node takes together, some wait in its queue (leased) behind the others.
	// The receiver is on this machine, and the account below is not an admin: its host is listed, as n8n's would be.
	const flags = [
		...['--work-lease', `${LEASE_MS / 1000}s`, '--webhook-retry', '0s,300ms,300ms', '--webhook-host-concurrency', '2'],
		...['--webhook-allow-hosts', '127.0.0.1'],
	];
	nodes = await startNodes(2, databaseUrl, newDataDir, flags);
	key = KEY.exec((await admin(databaseUrl, 'accounts', 'create', 'hooked')).stdout)![0];
}, 60_000);

afterAll(async () => {
	await Promise.all((nodes ?? []).map((node) => stopNode(node)));
	await receiver?.close();
	await postgres?.stop();
}, 60_000);

const webhookId = (request: ReceivedRequest) => request.headers['webhook-id'] as string;

/** The requests the receiver got for `path`, by webhook-id. */
function byWebhookId(path: string): Map<string, ReceivedRequest[]> {
	const requests = new Map<string, ReceivedRequest[]>();
	for (const request of receiver.requests.filter((r) => r.url === path)) {
		requests.set(webhookId(request), [...(requests.get(webhookId(request)) ?? []), request]);
	}
	return requests;
}

const pendingDeliveries = () => queryValue(database(), "SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'");

describe('webhooks on two nodes', () => {
	it('delivers each message once, whichever node received it, retries included', async () => {
		// The address's own webhook, set through one node, and a subscription, made through the other.
		await reserve(nodes[0], key, 'once@hooks.test', { webhook: `${receiver.url}/once` });
		const body = { url: `${receiver.url}/sub` };
		expect((await nodes[1].api(`/api/addresses/${enc('once@hooks.test')}/webhooks`, { method: 'POST', key, body })).status).toBe(201);
		// The first request of each delivery fails (500): its retry, 300 ms later, is for either node to take.
		const seen = new Set<string>();
		receiver.reply = (request) => {
			if (seen.has(webhookId(request))) return { status: 200 };
			seen.add(webhookId(request));
			return { status: 500 };
		};

		const count = 12;
		const ids: string[] = [];
		for (let i = 0; i < count; i++) ids.push(...(await sendTo(nodes[i % 2], { to: 'once@hooks.test', subject: `once ${i}` })));

		// Both consumers (the webhook and the subscription) get every message.
		const delivered = (path: string) => [...byWebhookId(path).values()].filter((requests) => requests.some((r) => r.status === 200));
		await waitFor(() => delivered('/once').length === count && delivered('/sub').length === count, 'every delivery to succeed', 20_000);
		await waitFor(async () => (await pendingDeliveries()) === 0, 'no delivery to be pending');
		for (const path of ['/once', '/sub']) {
			const received = byWebhookId(path);
			expect(received.size).toBe(count);
			// Each delivery: one failed request and one retry, never a second of either.
			for (const requests of received.values()) expect(requests.map((r) => r.status)).toEqual([500, 200]);
			const messageIds = [...received.values()].map((requests) => (JSON.parse(requests[1].body) as { _id: string })._id);
			expect(messageIds.sort()).toEqual([...ids].sort());
		}
		for (const node of nodes) expect(loggedErrors(node)).toEqual([]);
	}, 60_000);

	it('takes up the deliveries of a node killed mid-attempt once its lease has run out: none is lost', async () => {
		const recipients = Array.from({ length: 4 }, (_, i) => `killed${i}@hooks.test`);
		for (const recipient of recipients) await reserve(nodes[0], key, recipient, { webhook: `${receiver.url}/killed` });
		// Holds every request open: the node that took the deliveries keeps them leased while it waits.
		let holding = true;
		const arrivals: number[] = [];
		receiver.reply = () => {
			if (holding) return { status: 200, delayMs: 120_000 };
			arrivals.push(Date.now());
			return { status: 200 };
		};

		// One transaction: one node claims the four deliveries together, two in flight and two waiting in its queue.
		const ids = await sendTo(nodes[0], { to: recipients, subject: 'killed mid-attempt' });
		await waitFor(() => byWebhookId('/killed').size === 2, 'two attempts in flight');
		const holders = await query<{ lease_node: string }>(
			database(),
			`SELECT DISTINCT lease_node FROM webhook_deliveries WHERE message_id IN (${ids.map(() => '?').join(', ')})`,
			ids,
		);
		expect(holders).toHaveLength(1);
		const holder = nodes.find((node) => nodeIdOf(node) === holders[0].lease_node)!;
		const survivor = nodes.find((node) => node !== holder)!;
		const inFlight = [...byWebhookId('/killed').keys()];
		const before = receiver.requests.length;

		await killNode(holder);
		const killedAt = Date.now();
		holding = false;
		const afterKill = () =>
			new Set(
				receiver.requests
					.slice(before)
					.filter((r) => r.url === '/killed')
					.map(webhookId),
			);
		await waitFor(() => afterKill().size === ids.length, 'every delivery to arrive from the survivor', LEASE_MS + 10_000);
		await waitFor(async () => (await pendingDeliveries()) === 0, 'no delivery to be pending');

		// Not before the lease ran out (renewed every third of it until the kill), and soon after.
		expect(arrivals[0] - killedAt).toBeGreaterThanOrEqual(LEASE_MS / 2);
		expect(arrivals[0] - killedAt).toBeLessThan(LEASE_MS + 3000);
		const received = byWebhookId('/killed');
		expect(received.size).toBe(ids.length);
		// At least once: the attempts the kill cut short are made again, so those (and only those) arrived twice.
		const duplicates = [...received.entries()].filter(([, requests]) => requests.length > 1).map(([id]) => id);
		expect(duplicates.sort()).toEqual(inFlight.sort());
		for (const requests of received.values()) expect(requests.length).toBeLessThanOrEqual(2);

		// Recent Activity, read through the survivor: one delivered attempt per delivery (the killed node recorded none).
		const { body: activity } = await survivor.api<WebhookAttempt[]>('/api/webhook-activity?status=delivered', { key });
		const killedActivity = activity.filter((attempt) => attempt.url === `${receiver.url}/killed`);
		expect(killedActivity.map((attempt) => attempt.deliveryId).sort()).toEqual([...received.keys()].sort());
		expect(killedActivity.map((attempt) => attempt.messageId).sort()).toEqual([...ids].sort());
		expect(killedActivity.every((attempt) => attempt.attempt === 1)).toBe(true);
		expect(loggedErrors(survivor)).toEqual([]);
	}, 60_000);
});
