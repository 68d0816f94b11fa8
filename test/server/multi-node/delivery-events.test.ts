import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DeliveryEvent } from 'mailroom-server/dist/schemas/delivery-event';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { deliveryReport, sendReport } from '../../helpers/delivery-reports';
import { postOutgoing, senderAccount } from '../../helpers/outgoing';
import { startPostgres, type TestPostgres } from '../../helpers/postgres';
import { startTestRelay, type TestRelay } from '../../helpers/smtp-relay';
import { listen, type Listener } from '../../helpers/websocket';
import { waitFor } from '../../helpers/webhook-receiver';

/**
 * Delivery events on two nodes of one database: an account-wide websocket on either node hears every event of the
 * account's sent mail once, whichever node recorded it (the node that relayed it, or the one a report came back to).
 * Two servers in this process, each with its own store connections, hub and listener: they hear each other only through
 * PostgreSQL, as two processes do.
 */

let postgres: TestPostgres;
let remote: TestRelay;
let a: TestMailroom;
let b: TestMailroom;
let alice: { id: string; key: string };
/** Account-wide websockets of alice's: on node a, and on node b. */
let onA: Listener;
let onB: Listener;

beforeAll(async () => {
	postgres = await startPostgres();
	const databaseUrl = await postgres.newDatabase({ migrated: true });
	// The remote MTA: refuses refused@ at RCPT, takes the rest.
	remote = await startTestRelay({
		refuse: (rcpt) => (rcpt.startsWith('refused@') ? { code: 550, message: '5.1.1 No such user here' } : undefined),
	});
	const settings = { databaseUrl, domains: ['local.test'], relayUrl: remote.url, returnPathDomain: 'rp.local.test' };
	[a, b] = await Promise.all([startTestMailroom(settings), startTestMailroom(settings)]);
	alice = await senderAccount(a, 'alice', 'alice@local.test', 100);
	[onA, onB] = await Promise.all([listen(a, `key=${alice.key}&scope=account`), listen(b, `key=${alice.key}&scope=account`)]);
});

afterAll(async () => {
	onA?.socket.close();
	onB?.socket.close();
	await Promise.all([a?.stop({ removeData: true }), b?.stop({ removeData: true })]);
	await remote?.close();
	await postgres?.stop();
});

/** The events a websocket heard, as [sent message, recipient, type]. */
const heard = (listener: Listener) =>
	listener.frames.flatMap(({ event }) => (event ? [[event.sentMessageId, event.recipient, event.type]] : []));

/** The events the websocket heard, once it heard `count`. */
const once = (listener: Listener, count: number) =>
	waitFor(() => (heard(listener).length >= count ? heard(listener) : undefined), `${count} events over the websocket`);

describe('delivery events on two nodes', () => {
	it("sends each event of mail sent through one node to the account's websockets on both, once", async () => {
		const sent = await postOutgoing(a, alice.key, {
			from: 'alice@local.test',
			to: 'fine@remote.test',
			cc: 'refused@remote.test',
			subject: 'followed',
			text: 'hello',
		});
		expect(sent.status).toBe(200);
		const id = sent.body._id;
		// Relayed by a: one delivered, one refused.
		const relayed = [
			[id, 'fine@remote.test', 'delivered'],
			[id, 'refused@remote.test', 'failed'],
		];
		for (const listener of [onA, onB]) expect(await once(listener, 2)).toEqual(expect.arrayContaining(relayed));

		// The remote server's bounce comes back to node b: b records the event, and a's websocket hears it too.
		const fine = sent.body.recipients[0];
		await sendReport(b, deliveryReport('postfix', sent.body, fine), fine.returnPath!);
		for (const listener of [onA, onB]) expect((await once(listener, 3))[2]).toEqual([id, 'fine@remote.test', 'bounced']);

		// Another message, sent through b: once both hear its event, any second copy of the ones before would have come first.
		const last = await postOutgoing(b, alice.key, { from: 'alice@local.test', to: 'last@remote.test', subject: 'last', text: 'x' });
		for (const listener of [onA, onB]) {
			const events = await once(listener, 4);
			expect(events.at(-1)).toEqual([last.body._id, 'last@remote.test', 'delivered']);
			expect(events.slice(0, 2)).toEqual(expect.arrayContaining(relayed));
			expect(events).toHaveLength(4);
		}
		const bounced = onA.frames.find(({ event }) => event?.type === 'bounced')!.event as DeliveryEvent;
		expect(onB.frames.find(({ event }) => event?.type === 'bounced')!.event).toEqual(bounced);
		expect(bounced).toMatchObject({ statusCode: '5.1.1', bounceMessageId: expect.any(String), from: 'alice@local.test' });
	});
});
