import { describe, expect, it } from '@jest/globals';
import type { AttemptExchange, AttemptRecord, NewDelivery } from 'mailroom-server/dist/store/store';
import { ENGINES, storePerTest } from '../../helpers/stores';
import { query, queryColumn, queryValue } from '../../helpers/database';

const NOW = Date.UTC(2026, 9, 1);
const leaseTo = (node: string, until = NOW + 60_000) => ({ node, until });

const delivery = (overrides: Partial<NewDelivery> = {}): NewDelivery => ({
	messageId: 'message-1',
	accountId: 'account-1',
	address: 'hooked@x.test',
	url: 'https://hook.test/',
	kind: 'webhook',
	...overrides,
});

const attempt = (overrides: Partial<AttemptRecord> = {}): AttemptRecord => ({
	status: 'retrying',
	statusCode: 500,
	error: 'HTTP 500',
	durationMs: 12,
	time: NOW + 100,
	nextRetry: NOW + 10_000,
	...overrides,
});

/** What an attempt sent and got back: repeated and unsorted header names, bodies cut short, bytes that are not UTF-8. */
const exchange = (): AttemptExchange => ({
	request: {
		headers: [
			['User-Agent', 'Mailroom'],
			['Content-Type', 'application/json'],
			['X-Mailroom-Signature', 't=1,v1=ab'],
			['X-Mailroom-Signature', 't=1,v1=cd'],
			['Accept', '*/*'],
		],
		body: { head: Buffer.from([0x7b, 0x00, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0xe2, 0x82]), bytes: 40_000 },
	},
	response: {
		headers: [
			['x-trace', 'b'],
			['Set-Cookie', 'a=1'],
			['set-cookie', 'b=2'],
			['content-length', '7'],
		],
		body: { head: Buffer.from([0x80, 0x00, 0x0a, 0x6f, 0x6b, 0xf0, 0x9f]), bytes: 7 },
	},
});

describe.each(ENGINES)('WebhookDeliveryStore: deliveries, leased to one node at a time, and their Recent Activity (%s)', (engine) => {
	const current = storePerTest(engine);

	it("records deliveries, and finds the address's own webhook delivery of a message, the latest", async () => {
		const { webhookDeliveries } = current();
		const id = await webhookDeliveries.create(delivery(), NOW);
		expect(await webhookDeliveries.get(id)).toMatchObject({
			id,
			message_id: 'message-1',
			kind: 'webhook',
			subscription_id: null,
			status: 'pending',
			attempts: 0,
			schedule_start: 0,
			lease_node: null,
			lease_until: null,
			next_attempt: NOW,
			created: NOW,
			updated: NOW,
		});
		await webhookDeliveries.create(delivery({ kind: 'slack' }), NOW + 1);
		await webhookDeliveries.create(delivery({ subscriptionId: 'sub-1' }), NOW + 2);
		expect((await webhookDeliveries.forMessage('message-1', 'hooked@x.test'))?.id).toBe(id);
		const later = await webhookDeliveries.create(delivery(), NOW + 3);
		expect((await webhookDeliveries.forMessage('message-1', 'hooked@x.test'))?.id).toBe(later);
		expect(await webhookDeliveries.forMessage('message-1', 'other@x.test')).toBeUndefined();
		expect(await webhookDeliveries.get('nope')).toBeUndefined();
	});

	it('leases pending deliveries due and free, oldest first, each to one claim', async () => {
		const { webhookDeliveries } = current();
		const ids: string[] = [];
		for (let i = 0; i < 60; i++) ids.push(await webhookDeliveries.create(delivery({ messageId: `m${i}` }), NOW + (i % 6)));
		expect(await webhookDeliveries.claim(NOW - 1, 10, leaseTo('node-a'))).toEqual([]);
		const claims = await Promise.all(
			Array.from({ length: 10 }, (_, i) => webhookDeliveries.claim(NOW + 10, 9, leaseTo(i % 2 ? 'node-a' : 'node-b'))),
		);
		const claimed = claims.flat();
		expect(claimed.map((row) => row.id).sort()).toEqual([...ids].sort());
		for (const claim of claims) {
			const order = claim.map((row) => [row.next_attempt, row.id]);
			expect(order).toEqual(
				[...order].sort((a, b) => (a[0] as number) - (b[0] as number) || ((a[1] as string) < (b[1] as string) ? -1 : 1)),
			);
			for (const row of claim) expect(row.lease_until).toBe(NOW + 60_000);
		}
		expect(await webhookDeliveries.claim(NOW + 10, 100, leaseTo('node-a'))).toEqual([]);
	});

	it('renews and releases leases (all of a node, or some), and says when the next delivery is due', async () => {
		const { webhookDeliveries } = current();
		expect(await webhookDeliveries.nextDue(NOW)).toBeUndefined();
		const first = await webhookDeliveries.create(delivery(), NOW + 1000);
		const second = await webhookDeliveries.create(delivery(), NOW + 1000);
		const third = await webhookDeliveries.create(delivery(), NOW + 3000);
		expect(await webhookDeliveries.nextDue(NOW)).toBe(NOW + 1000);
		// Due at the same time, they come in the order of their ids (made in one millisecond, those need not be the order made).
		expect((await webhookDeliveries.claim(NOW + 1000, 2, leaseTo('node-a', NOW + 2000))).map((row) => row.id)).toEqual(
			[first, second].sort(),
		);
		expect(await webhookDeliveries.nextDue(NOW + 1000)).toBe(NOW + 2001);
		await webhookDeliveries.renewLeases(leaseTo('node-a', NOW + 5000));
		expect(await webhookDeliveries.nextDue(NOW + 1000)).toBe(NOW + 3000);
		expect(await webhookDeliveries.claim(NOW + 4000, 10, leaseTo('node-b'))).toMatchObject([{ id: third }]);
		await webhookDeliveries.releaseLeases('node-a', [second]);
		expect(await webhookDeliveries.claim(NOW + 4000, 10, leaseTo('node-b'))).toMatchObject([{ id: second }]);
		await webhookDeliveries.releaseLeases('node-a');
		expect(await webhookDeliveries.claim(NOW + 4000, 10, leaseTo('node-b'))).toMatchObject([{ id: first }]);
		// Every delivery leased by node-b until NOW + 60000: due again after that.
		expect(await webhookDeliveries.nextDue(NOW + 4000)).toBe(NOW + 60_001);
	});

	it('logs an attempt, moves the delivery on and ends its lease; a failed one is redelivered with a fresh schedule', async () => {
		const { webhookDeliveries } = current();
		const id = await webhookDeliveries.create(delivery(), NOW);
		const [leased] = await webhookDeliveries.claim(NOW, 1, leaseTo('node-a'));
		await webhookDeliveries.recordAttempt(leased, attempt());
		expect(await webhookDeliveries.get(id)).toMatchObject({
			status: 'pending',
			attempts: 1,
			next_attempt: NOW + 10_000,
			last_status_code: 500,
			last_error: 'HTTP 500',
			updated: NOW + 100,
			lease_node: null,
			lease_until: null,
		});
		expect(await webhookDeliveries.redeliver(id, NOW + 200)).toBe(false);
		const [again] = await webhookDeliveries.claim(NOW + 10_000, 1, leaseTo('node-a'));
		await webhookDeliveries.recordAttempt(again, attempt({ status: 'failed', time: NOW + 10_100, nextRetry: null, error: 'gave up' }));
		expect(await webhookDeliveries.get(id)).toMatchObject({ status: 'failed', attempts: 2, next_attempt: null });
		expect(await webhookDeliveries.claim(NOW + 99_999, 10, leaseTo('node-a'))).toEqual([]);

		expect(await webhookDeliveries.redeliver(id, NOW + 20_000)).toBe(true);
		expect(await webhookDeliveries.get(id)).toMatchObject({
			status: 'pending',
			attempts: 2,
			schedule_start: 2,
			next_attempt: NOW + 20_000,
		});
		const activity = await webhookDeliveries.activity('account-1', { limit: 10 });
		expect(activity.map((a) => [a.attempt, a.status, a.statusCode, a.error, a.nextRetry])).toEqual([
			[2, 'failed', 500, 'gave up', null],
			[1, 'retrying', 500, 'HTTP 500', new Date(NOW + 10_000).toISOString()],
		]);
		expect(activity[0]).toMatchObject({
			deliveryId: id,
			messageId: 'message-1',
			address: 'hooked@x.test',
			durationMs: 12,
			subscriptionId: null,
		});
	});

	it("shows an account's Recent Activity newest first, by address and status, and prunes what is old", async () => {
		const { webhookDeliveries } = current();
		const log = async (address: string, status: AttemptRecord['status'], time: number, accountId = 'account-1') => {
			const id = await webhookDeliveries.create(delivery({ address, accountId }), NOW);
			await webhookDeliveries.recordAttempt((await webhookDeliveries.get(id))!, attempt({ status, time, nextRetry: null }));
		};
		await log('a@x.test', 'delivered', NOW + 1);
		await log('b@x.test', 'failed', NOW + 2);
		await log('a@x.test', 'refused', NOW + 3);
		await log('a@x.test', 'delivered', NOW + 4, 'account-2');
		const times = async (filter: { address?: string; status?: AttemptRecord['status']; limit: number }) =>
			(await webhookDeliveries.activity('account-1', filter)).map((a) => Date.parse(a.time) - NOW);
		expect(await times({ limit: 10 })).toEqual([3, 2, 1]);
		expect(await times({ limit: 2 })).toEqual([3, 2]);
		expect(await times({ address: 'a@x.test', limit: 10 })).toEqual([3, 1]);
		expect(await times({ address: 'a@x.test', status: 'delivered', limit: 10 })).toEqual([1]);
		await webhookDeliveries.create(delivery(), NOW);
		await webhookDeliveries.prune(NOW + 3);
		expect(await times({ limit: 10 })).toEqual([3]);
		// Finished deliveries last updated before then go; pending ones stay whatever their age.
		expect(await query(current(), 'SELECT status, updated FROM webhook_deliveries ORDER BY updated')).toEqual([
			{ status: 'pending', updated: NOW },
			{ status: 'refused', updated: NOW + 3 },
			{ status: 'delivered', updated: NOW + 4 },
		]);
	});

	it('keeps what an attempt sent and got back byte for byte, and none for an attempt that sent nothing', async () => {
		const { webhookDeliveries } = current();
		const sent = exchange();
		await webhookDeliveries.create(delivery(), NOW);
		const [leased] = await webhookDeliveries.claim(NOW, 1, leaseTo('node-a'));
		await webhookDeliveries.recordAttempt(leased, attempt({ exchange: sent }));
		const [again] = await webhookDeliveries.claim(NOW + 10_000, 1, leaseTo('node-a'));
		// No response came (a timeout): the request alone is kept; its body empty.
		const unanswered: AttemptExchange = {
			request: { headers: [['Content-Type', 'text/plain']], body: { head: Buffer.alloc(0), bytes: 0 } },
			response: null,
		};
		await webhookDeliveries.recordAttempt(
			again,
			attempt({ time: NOW + 10_100, statusCode: null, error: 'timed out', exchange: unanswered }),
		);
		const refusedId = await webhookDeliveries.create(delivery({ messageId: 'message-2' }), NOW);
		await webhookDeliveries.recordAttempt(
			(await webhookDeliveries.get(refusedId))!,
			attempt({ status: 'refused', time: NOW + 20_000, statusCode: null, nextRetry: null, error: 'refused' }),
		);

		const [refused, second, first] = await webhookDeliveries.activity('account-1', { limit: 10 });
		expect([first.attempt, second.attempt, refused.status]).toEqual([1, 2, 'refused']);
		const stored = await webhookDeliveries.attempt(first._id);
		expect(stored).toEqual({ accountId: 'account-1', attempt: first, exchange: sent });
		// toEqual compares Buffers by their bytes, but check that they are Buffers and the order of headers as well.
		expect(Buffer.isBuffer(stored!.exchange!.request.body.head)).toBe(true);
		expect(Buffer.isBuffer(stored!.exchange!.response!.body.head)).toBe(true);
		expect(stored!.exchange!.request.body.head.equals(sent.request.body.head)).toBe(true);
		expect(stored!.exchange!.response!.body.head.equals(sent.response!.body.head)).toBe(true);
		expect(stored!.exchange!.request.headers.map(([name]) => name)).toEqual([
			'User-Agent',
			'Content-Type',
			'X-Mailroom-Signature',
			'X-Mailroom-Signature',
			'Accept',
		]);
		expect([stored!.exchange!.request.body.bytes, stored!.exchange!.response!.body.bytes]).toEqual([40_000, 7]);

		const timedOut = await webhookDeliveries.attempt(second._id);
		expect(timedOut).toEqual({ accountId: 'account-1', attempt: second, exchange: unanswered });
		expect(Buffer.isBuffer(timedOut!.exchange!.request.body.head)).toBe(true);
		expect(await webhookDeliveries.attempt(refused._id)).toEqual({ accountId: 'account-1', attempt: refused, exchange: null });
		expect(await webhookDeliveries.attempt('nope')).toBeUndefined();
		expect(await queryValue(current(), 'SELECT count(*) FROM webhook_exchanges')).toBe(2);
	});

	it('prunes old attempts together with their exchanges', async () => {
		const { webhookDeliveries } = current();
		const log = async (time: number, withExchange: boolean) => {
			const id = await webhookDeliveries.create(delivery(), NOW);
			await webhookDeliveries.recordAttempt(
				(await webhookDeliveries.get(id))!,
				attempt({ status: 'delivered', time, nextRetry: null, exchange: withExchange ? exchange() : undefined }),
			);
		};
		await log(NOW + 1, true);
		await log(NOW + 2, false);
		await log(NOW + 3, true);
		await log(NOW + 4, true);
		const [newest, kept] = await webhookDeliveries.activity('account-1', { limit: 10 });
		expect(await queryValue(current(), 'SELECT count(*) FROM webhook_exchanges')).toBe(3);
		await webhookDeliveries.prune(NOW + 3);
		expect((await webhookDeliveries.activity('account-1', { limit: 10 })).map((a) => a._id)).toEqual([newest._id, kept._id]);
		expect(await queryValue(current(), 'SELECT count(*) FROM webhook_exchanges')).toBe(2);
		expect((await queryColumn<string>(current(), 'SELECT attempt_id FROM webhook_exchanges')).sort()).toEqual(
			[newest._id, kept._id].sort(),
		);
		expect((await webhookDeliveries.attempt(kept._id))?.exchange).toEqual(exchange());
		await webhookDeliveries.prune(NOW + 10);
		expect(await queryValue(current(), 'SELECT count(*) FROM webhook_exchanges')).toBe(0);
		expect(await queryValue(current(), 'SELECT count(*) FROM webhook_attempts')).toBe(0);
	});
});
