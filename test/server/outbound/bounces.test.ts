import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { OutgoingRecord } from 'mailroom-server/dist/schemas/outgoing';
import type { DeliveryEvent, EventSubscription, Suppression } from 'mailroom-server/dist/schemas/delivery-event';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { startTestRelay, type TestRelay } from '../../helpers/smtp-relay';
import { WebhookReceiver, waitFor } from '../../helpers/webhook-receiver';
import { FAST, activity } from '../../helpers/webhooks';
import { listen, type Listener } from '../../helpers/websocket';
import { postOutgoing, senderAccount } from '../../helpers/outgoing';
import { deliveryReport as report, sendReport } from '../../helpers/delivery-reports';

describe('outbound mail you can follow: return paths, reports, suppression and delivery events', () => {
	let remote: TestRelay;
	let server: TestMailroom;
	let alice: { id: string; key: string };
	let receiver: WebhookReceiver;
	let socket: Listener;
	let subscription: EventSubscription;

	beforeAll(async () => {
		// The remote MTA: refuses refused@ at RCPT, takes the rest (the tests send its reports back, as it would).
		remote = await startTestRelay({
			refuse: (rcpt) => (rcpt.startsWith('refused@') ? { code: 550, message: '5.1.1 No such user here' } : undefined),
		});
		receiver = new WebhookReceiver();
		await receiver.listen();
		server = await startTestMailroom({
			domains: ['local.test'],
			relayUrl: remote.url,
			relayRetryDelays: [50, 50],
			returnPathDomain: 'rp.local.test',
			testDomain: 'tests.example',
			...FAST,
		});
		alice = await senderAccount(server, 'alice', 'alice@local.test', 1000);
		const created = await server.api<EventSubscription>('/api/event-webhooks', {
			method: 'POST',
			key: alice.key,
			body: { url: `${receiver.url}/events`, events: ['delivered', 'deferred', 'bounced', 'complained', 'failed'] },
		});
		expect(created.status).toBe(201);
		subscription = created.body;
		socket = await listen(server, `key=${alice.key}&scope=account`);
	});
	afterAll(async () => {
		socket.socket.close();
		await server.stop();
		await remote.close();
		await receiver.close();
	});

	const send = async (to: string, body: Record<string, unknown> = {}) => {
		const res = await postOutgoing(server, alice.key, { from: 'alice@local.test', to, subject: `to ${to}`, text: 'hello', ...body });
		expect(res.status).toBe(200);
		return res.body;
	};
	const record = async (id: string) =>
		(await server.api<OutgoingRecord[]>('/api/outgoing-messages', { key: alice.key })).body.find((r) => r._id === id)!;
	/** The recipient once its status is `status`. */
	const recipientOnce = (id: string, status: string) =>
		waitFor(async () => (await record(id)).recipients.find((r) => r.status === status), `a recipient ${status}`);
	/** The events posted to the subscription for a sent message, once `count` came. */
	const postedEvents = (id: string, count: number) =>
		waitFor(() => {
			const events = receiver.requests.map((request) => JSON.parse(request.body) as DeliveryEvent).filter((e) => e.sentMessageId === id);
			return events.length >= count ? events : undefined;
		}, `${count} events posted`);
	const socketEvents = (id: string, count: number) =>
		waitFor(() => {
			const events = socket.frames.flatMap((frame) => (frame.event ? [frame.event] : []));
			const of = events.filter((event) => event.sentMessageId === id);
			return of.length >= count ? of : undefined;
		}, `${count} events over the websocket`);
	const bounceBack = (raw: string, returnPath: string) => sendReport(server, raw, returnPath);

	it('gives each relayed recipient its own return path, and a refusal at RCPT stays failed with the relay reply and a failed event', async () => {
		const sent = await send('refused@remote.test', { cc: 'fine@remote.test' });
		expect(sent.status).toBe('failed');
		const [refused, fine] = sent.recipients;
		expect(refused).toMatchObject({
			status: 'failed',
			error: expect.stringMatching(/^550 /),
			returnPath: expect.stringMatching(/^bounces\+[a-z2-7]{20}@rp\.local\.test$/),
		});
		expect(fine.returnPath).not.toBe(refused.returnPath);
		const mail = remote.received.find((m) => m.to[0] === 'fine@remote.test')!;
		expect(mail.from).toBe(fine.returnPath);
		const events = await postedEvents(sent._id, 2);
		expect(events.map((e) => [e.recipient, e.type])).toEqual(
			expect.arrayContaining([
				['refused@remote.test', 'failed'],
				['fine@remote.test', 'delivered'],
			]),
		);
		expect(events.find((e) => e.type === 'failed')).toMatchObject({ diagnostic: expect.stringMatching(/^550 /), bounceMessageId: null });
		// Posted as webhook deliveries: signed, in Recent Activity.
		expect(receiver.requests.find((r) => r.body.includes(sent._id))!.headers['webhook-signature']).toMatch(/^v1,/);
		expect((await activity(server, alice.key)).some((a) => a.subscriptionId === subscription._id && a.status === 'delivered')).toBe(true);
		// Recent Activity of one subscription (the dashboard's list of event subscriptions shows their last deliveries).
		const ofSubscription = await activity(server, alice.key, `?subscriptionId=${subscription._id}`);
		expect(ofSubscription.length).toBeGreaterThan(0);
		expect(ofSubscription.every((a) => a.subscriptionId === subscription._id)).toBe(true);
		expect(await activity(server, alice.key, '?subscriptionId=no-such-subscription')).toEqual([]);
		// The sent message alone, as the list has it; another account's key gets a 404, as for no message at all.
		const one = await server.api<OutgoingRecord>(`/api/outgoing-messages/${sent._id}`, { key: alice.key });
		expect(one).toMatchObject({ status: 200, body: await record(sent._id) });
		const stranger = await server.createAccount('stranger', 0);
		expect((await server.api(`/api/outgoing-messages/${sent._id}`, { key: stranger.key })).status).toBe(404);
		expect((await server.api('/api/outgoing-messages/no-such-message', { key: alice.key })).status).toBe(404);
	});

	const layouts: [string, string, RegExp][] = [
		['gmail', '5.1.1', /^dns; googlemail\.com$/],
		['outlook', '5.1.10', /^dns;AM0PR01MB1234/],
		['postfix', '5.1.1', /^dns; mx\.example\.org$/],
		['exim', '5.0.0', /^dns; mail\.example\.net$/],
	];
	it.each(layouts)(
		'reads a %s bounce: the recipient bounced (%s), linked to the report, suppressed, with its events',
		async (layout, code, mta) => {
			const sent = await send(`${layout}-user@remote.test`);
			expect(sent.status).toBe('delivered');
			const recipient = sent.recipients[0];
			await bounceBack(report(layout, sent, recipient), recipient.returnPath!);
			const bounced = await recipientOnce(sent._id, 'bounced');
			expect(bounced).toMatchObject({
				statusCode: code,
				reportingMta: expect.stringMatching(mta),
				diagnostic: expect.stringContaining('550'),
			});
			expect((await record(sent._id)).status).toBe('bounced');
			// The report is mail: in alice's inbox, readable, linked from the recipient.
			const kept = await server.api<MessageRecord>(`/api/addresses/alice%40local.test/messages/${bounced.bounceMessageId}`, {
				key: alice.key,
			});
			expect(kept.status).toBe(200);
			expect(kept.body.originalInbox).toBe(recipient.returnPath);
			const events = await postedEvents(sent._id, 2);
			expect(events.map((e) => e.type)).toEqual(['delivered', 'bounced']);
			expect(events[1]).toMatchObject({
				recipient: recipient.address,
				statusCode: code,
				bounceMessageId: bounced.bounceMessageId,
				from: 'alice@local.test',
			});
			expect((await socketEvents(sent._id, 2)).map((e) => e.type)).toEqual(['delivered', 'bounced']);
			const list = (await server.api<Suppression[]>('/api/suppressions', { key: alice.key })).body;
			expect(list.find((s) => s.address === recipient.address)).toMatchObject({
				reason: 'bounced',
				sentMessageId: sent._id,
				statusCode: code,
			});
		},
	);

	it('reads a plain-text bounce without a delivery-status part (an old Exim)', async () => {
		const sent = await send('plain-user@remote.test');
		await bounceBack(report('exim-plain', sent, sent.recipients[0]), sent.recipients[0].returnPath!);
		expect(await recipientOnce(sent._id, 'bounced')).toMatchObject({
			statusCode: '5.7.1',
			diagnostic: expect.stringContaining('Relay access denied'),
		});
	});

	it('keeps mail to a return path that is no report (an out-of-office answer) and changes nothing', async () => {
		const sent = await send('away@remote.test');
		const recipient = sent.recipients[0];
		const answer = [
			'From: Away <away@remote.test>',
			`To: ${recipient.returnPath}`,
			'Subject: Out of office: back on Monday',
			'Auto-Submitted: auto-replied',
			'',
			'I am away until Monday (550 rooms booked for the conference).',
			'',
		].join('\r\n');
		await bounceBack(answer, recipient.returnPath!);
		const kept = await waitFor(async () => {
			const inbox = (await server.api<MessageRecord[]>('/api/addresses/alice%40local.test/messages', { key: alice.key })).body;
			return inbox.find((m) => m.originalInbox === recipient.returnPath);
		}, 'the answer in the sender inbox');
		expect(kept.subject).toBe('Out of office: back on Monday');
		expect((await record(sent._id)).recipients[0]).toMatchObject({ status: 'delivered', statusCode: null, bounceMessageId: null });
	});

	it('follows a delay then a delivery (Postfix): deferred, then delivered, each an event; a deferred recipient is not suppressed', async () => {
		const sent = await send('slow@remote.test');
		const recipient = sent.recipients[0];
		await bounceBack(report('postfix-delayed', sent, recipient), recipient.returnPath!);
		expect(await recipientOnce(sent._id, 'deferred')).toMatchObject({ statusCode: '4.2.0' });
		expect((await record(sent._id)).status).toBe('deferred');
		await bounceBack(report('postfix-delivered', sent, recipient), recipient.returnPath!);
		expect(await recipientOnce(sent._id, 'delivered')).toMatchObject({ statusCode: '2.0.0' });
		expect((await postedEvents(sent._id, 3)).map((e) => e.type)).toEqual(['delivered', 'deferred', 'delivered']);
		const list = (await server.api<Suppression[]>('/api/suppressions', { key: alice.key })).body;
		expect(list.map((s) => s.address)).not.toContain('slow@remote.test');
	});

	it('refuses a send to a suppressed address (422 naming the bounce) unless sendToSuppressed; DELETE takes it off the list', async () => {
		const refused = await postOutgoing(server, alice.key, {
			from: 'alice@local.test',
			to: 'postfix-user@remote.test',
			subject: 'again',
			text: 't',
		});
		expect(refused.status).toBe(422);
		expect(JSON.stringify(refused.body)).toMatch(
			/postfix-user@remote\.test is on your suppression list: it bounced .*5\.1\.1.*sendToSuppressed/,
		);
		expect((await send('postfix-user@remote.test', { sendToSuppressed: true })).status).toBe('delivered');
		// Another account's key sees its own (empty) list and cannot remove alice's entries.
		const bob = await server.createAccount('bob', 10);
		expect((await server.api<Suppression[]>('/api/suppressions', { key: bob.key })).body).toEqual([]);
		expect((await server.api('/api/suppressions/postfix-user%40remote.test', { method: 'DELETE', key: bob.key })).status).toBe(404);
		const removed = await server.api<Suppression>('/api/suppressions/postfix-user%40remote.test', { method: 'DELETE', key: alice.key });
		expect(removed).toMatchObject({ status: 200, body: { address: 'postfix-user@remote.test' } });
		expect((await send('postfix-user@remote.test')).status).toBe('delivered');
		expect((await server.api('/api/suppressions', {})).status).toBe(401);
	});

	it('answers the test addresses as a remote server would: bounce@ bounces, defer@ is deferred, complaint@ complains', async () => {
		const sent = await send('bounce@tests.example', { cc: ['defer@tests.example', 'complaint@tests.example', 'anyone@tests.example'] });
		expect(sent.recipients.map((r) => r.route)).toEqual(['test', 'test', 'test', 'test']);
		const statuses = await waitFor(async () => {
			const now = (await record(sent._id)).recipients.map((r) => r.status);
			return now.join() === 'bounced,deferred,complained,delivered' ? now : undefined;
		}, 'the test addresses answered');
		expect(statuses).toHaveLength(4);
		const events = await postedEvents(sent._id, 7);
		expect(events.filter((e) => e.type !== 'delivered').map((e) => [e.recipient, e.type, e.statusCode])).toEqual(
			expect.arrayContaining([
				['bounce@tests.example', 'bounced', '5.1.1'],
				['defer@tests.example', 'deferred', '4.2.0'],
				['complaint@tests.example', 'complained', null],
			]),
		);
		const list = (await server.api<Suppression[]>('/api/suppressions', { key: alice.key })).body;
		expect(list.filter((s) => s.address.endsWith('@tests.example')).map((s) => [s.address, s.reason])).toEqual(
			expect.arrayContaining([
				['bounce@tests.example', 'bounced'],
				['complaint@tests.example', 'complained'],
			]),
		);
		expect(remote.received.some((m) => m.to[0].endsWith('@tests.example'))).toBe(false);
	});

	it('lists and removes event subscriptions, each account its own', async () => {
		expect((await server.api<EventSubscription[]>('/api/event-webhooks', { key: alice.key })).body).toEqual([subscription]);
		const bob = await server.createAccount('bob-events', 10);
		expect((await server.api(`/api/event-webhooks/${subscription._id}`, { method: 'DELETE', key: bob.key })).status).toBe(404);
		const bad = await server.api('/api/event-webhooks', {
			method: 'POST',
			key: bob.key,
			body: { url: `${receiver.url}/x`, events: ['opened'] },
		});
		expect(bad.status).toBe(400);
		const removed = await server.api(`/api/event-webhooks/${subscription._id}`, { method: 'DELETE', key: alice.key });
		expect(removed).toMatchObject({ status: 200, body: subscription });
		expect((await server.api<EventSubscription[]>('/api/event-webhooks', { key: alice.key })).body).toEqual([]);
	});
});
