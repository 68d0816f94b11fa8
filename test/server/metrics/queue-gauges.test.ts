import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { scrape } from '../../helpers/metrics';
import { enc } from '../../helpers/messages';
import { postOutgoing, senderAccount } from '../../helpers/outgoing';
import { freePort } from '../../helpers/ports';
import { waitFor } from '../../helpers/webhook-receiver';
import { listen } from '../../helpers/websocket';

/** The queues and this node's waiting requests and websocket listeners, as the metrics listener reads them at each scrape. */

let server: TestMailroom;

beforeAll(async () => {
	// A relay that is down: outgoing mail to other domains waits in the outbox for its retry, a minute away.
	server = await startTestMailroom({ metricsPort: 0, domains: ['local.test'], relayUrl: `smtp://127.0.0.1:${await freePort()}` });
});
afterAll(() => server.stop());

const gauge = async (name: string, labels?: Record<string, string>) => (await scrape(server.metricsUrl)).value(name, labels);

describe('queue gauges', () => {
	it('show outgoing mail waiting for a retry of the relay as a scheduled outbox entry', async () => {
		const outbox = async () => ({
			due: await gauge('mailroom_outbox_entries', { state: 'due' }),
			scheduled: await gauge('mailroom_outbox_entries', { state: 'scheduled' }),
			held: await gauge('mailroom_outbox_entries', { state: 'held' }),
		});
		expect(await outbox()).toEqual({ due: 0, scheduled: 0, held: 0 });
		const account = await senderAccount(server, 'sender', 'me@local.test', 5);
		const sent = await postOutgoing(server, account.key, { from: 'me@local.test', to: 'far@remote.test', subject: 'later', text: 't' });
		expect(sent.body).toMatchObject({ status: 'queued' });
		await waitFor(async () => (await outbox()).scheduled === 1, 'the entry scheduled for its retry');
		expect(await outbox()).toEqual({ due: 0, scheduled: 1, held: 0 });
	});

	it('show the requests waiting for mail on this node', async () => {
		expect(await gauge('mailroom_waiting_requests')).toBe(0);
		const waiting = server.api(`/api/addresses/${enc('waiter@local.test')}/wait-for-message?timeout=20000`);
		await waitFor(async () => (await gauge('mailroom_waiting_requests')) === 1, 'the request counted as waiting');
		await server.send({ from: 'a@sender.test', to: 'waiter@local.test', text: 'here' });
		expect((await waiting).status).toBe(200);
		expect(await gauge('mailroom_waiting_requests')).toBe(0);
	});

	it('show the websocket clients listening on this node', async () => {
		expect(await gauge('mailroom_websocket_subscribers')).toBe(0);
		const listener = await listen(server, `key=${server.adminKey}&addresses=ws@local.test`);
		expect(await gauge('mailroom_websocket_subscribers')).toBe(1);
		listener.socket.close();
		await listener.closed;
		await waitFor(async () => (await gauge('mailroom_websocket_subscribers')) === 0, 'the listener gone');
	});
});
