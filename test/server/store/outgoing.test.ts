import { beforeEach, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { storedPieces, type PiecedBytes } from 'mailroom-server/dist/bytes/stored-bytes';
import { threadIdOf } from 'mailroom-server/dist/mail/threading';
import { newId } from 'mailroom-server/dist/store/ids';
import { PIECE_SIZE } from 'mailroom-server/dist/store/pieces';
import type { NewOutgoing } from 'mailroom-server/dist/store/store';
import { ENGINES, spooledFile, storePerTest } from '../../helpers/stores';
import { query } from '../../helpers/database';
import { NO_REPORT } from '../../helpers/outgoing';

/** Entries are recorded due at the time of recording: the tests' times are taken from it. */
const NOW = Date.now();
const leaseTo = (node: string, until = NOW + 60_000) => ({ node, until });

describe.each(ENGINES)('OutgoingStore: sent mail and the outbox, leased to one node at a time (%s)', (engine) => {
	const current = storePerTest(engine);
	let account: string;
	beforeEach(async () => {
		account = (await current().accounts.create('sender', { credits: 100 })).id;
	});

	const message = (to: string[], overrides: Partial<NewOutgoing> = {}): NewOutgoing => ({
		id: newId(),
		accountId: account,
		from: 'me@local.test',
		subject: 'hello',
		sent: new Date(NOW).toISOString(),
		recipients: to.map((address, i) => ({
			...{ address, field: i ? 'cc' : 'to', route: address.endsWith('@local.test') ? 'local' : 'relay' },
			note: address.startsWith('kept') ? 'kept here' : null,
			returnPath: null,
		})),
		inReplyTo: null,
		raw: Buffer.from('From: me@local.test\r\n\r\nhi\r\n'),
		ip: '192.0.2.1',
		via: '127.0.0.1',
		...overrides,
	});
	/** Records a message whose first attempt (by node-a, at once) found nothing to do; it is due at `due`. */
	const queued = async (due: number, to = ['x@remote.test']) => {
		const { outgoing } = current();
		const { record } = (await outgoing.record(message(to), leaseTo('node-a')))!;
		await outgoing.settle(record._id, new Map([[to[0], { status: 'temporary', error: '451 later' }]]), due);
		return record._id;
	};

	it('takes one credit per recipient and records the message with its outbox entry, leased to the sender', async () => {
		const { outgoing } = current();
		const sent = message(['a@local.test', 'b@remote.test', 'kept@local.test'], { inReplyTo: 'received-1' });
		const recorded = await outgoing.record(sent, leaseTo('node-a'));
		expect(recorded?.creditsRemaining).toBe(97);
		expect(recorded?.record).toMatchObject({
			_id: sent.id,
			to: ['a@local.test'],
			cc: ['b@remote.test', 'kept@local.test'],
			bcc: [],
			status: 'queued',
			attempts: 0,
			inReplyTo: 'received-1',
			recipients: [
				{ address: 'a@local.test', field: 'to', route: 'local', status: 'queued', error: null, note: null },
				{ address: 'b@remote.test', field: 'cc', route: 'relay', status: 'queued', error: null, note: null },
				{ address: 'kept@local.test', field: 'cc', route: 'local', status: 'queued', error: null, note: 'kept here' },
			],
		});
		expect(await outgoing.get(sent.id)).toEqual(recorded?.record);
		expect(await outgoing.entry(sent.id)).toEqual({ record: recorded?.record, raw: sent.raw, ip: sent.ip, via: sent.via });
		// Leased to its sender, who attempts it at once: no other node takes it before the lease runs out.
		expect(await outgoing.claimDue(NOW + 30_000, 10, leaseTo('node-b'))).toEqual([]);
		expect(await outgoing.claimDue(NOW + 60_001, 10, leaseTo('node-b', NOW + 120_000))).toEqual([sent.id]);
	});

	it('keeps a message recorded from a spool file in pieces, read one at a time, which go with its outbox entry', async () => {
		const { outgoing } = current();
		const raw = randomBytes(2 * PIECE_SIZE + 1000);
		const sent = message(['a@local.test'], { raw: spooledFile(current(), raw) });
		await outgoing.record(sent, leaseTo('node-a'));
		const stored = (await outgoing.entry(sent.id))!.raw as PiecedBytes;
		expect(Buffer.isBuffer(stored)).toBe(false);
		expect(stored.length).toBe(raw.length);
		const pieces: Buffer[] = [];
		for await (const piece of storedPieces(stored)) pieces.push(Buffer.from(piece));
		expect(pieces.map((piece) => piece.length)).toEqual([PIECE_SIZE, PIECE_SIZE, 1000]);
		expect(Buffer.concat(pieces).equals(raw)).toBe(true);
		expect(await query(current(), 'SELECT length(raw) AS bytes FROM outbox')).toEqual([{ bytes: 0 }]);

		await outgoing.settle(sent.id, new Map([['a@local.test', { status: 'delivered' }]]), NOW);
		expect(await query(current(), 'SELECT * FROM outbox_raw_pieces')).toEqual([]);
	});

	it('threads a message recorded from a spool file by the header of that file, as one in memory', async () => {
		const { outgoing } = current();
		const head = 'From: me@local.test\r\nMessage-ID: <large@local.test>\r\nReferences: <root@remote.test>\r\n\r\n';
		const large = message(['a@local.test'], {
			raw: spooledFile(current(), Buffer.concat([Buffer.from(head), randomBytes(PIECE_SIZE + 10)])),
		});
		const root = threadIdOf(account, '<root@remote.test>');
		expect((await outgoing.record(large, leaseTo('node-a')))?.record.threadId).toBe(root);
		// Its Message-ID was kept (its key): mail naming only that one joins its thread.
		const answer = message(['a@local.test'], { raw: Buffer.from('From: me@local.test\r\nIn-Reply-To: <large@local.test>\r\n\r\nhi\r\n') });
		expect((await outgoing.record(answer, leaseTo('node-a')))?.record.threadId).toBe(root);
	});

	it('changes nothing when the account has too few credits, and never overspends under concurrent sends', async () => {
		const { accounts, outgoing } = current();
		const poor = (await accounts.create('poor', { credits: 7 })).id;
		expect(await outgoing.record(message(['a@x.test'], { accountId: 'nobody' }), leaseTo('node-a'))).toBeNull();
		const outcomes = await Promise.all(
			Array.from({ length: 12 }, (_, i) =>
				outgoing.record(message([`c${i}a@x.test`, `c${i}b@x.test`], { accountId: poor }), leaseTo('node-a')),
			),
		);
		expect(outcomes.filter((outcome) => outcome !== null)).toHaveLength(3);
		expect((await accounts.require(poor)).credits).toBe(1);
		expect((await outgoing.list(poor, 10)).length).toBe(3);
		expect(
			outcomes
				.filter((outcome) => outcome !== null)
				.map((outcome) => outcome.creditsRemaining)
				.sort(),
		).toEqual([1, 3, 5]);
	});

	it('leases entries that are due and free, oldest first, each to one claim', async () => {
		const { outgoing } = current();
		const ids = [];
		for (let i = 0; i < 40; i++) ids.push(await queued(NOW + 1000 + (i % 10)));
		expect(await outgoing.claimDue(NOW + 999, 10, leaseTo('node-a'))).toEqual([]);
		const claims = await Promise.all(
			Array.from({ length: 8 }, (_, i) => outgoing.claimDue(NOW + 2000, 7, leaseTo(i % 2 ? 'node-a' : 'node-b'))),
		);
		const claimed = claims.flat();
		expect(claimed.sort()).toEqual([...ids].sort());
		expect(new Set(claimed).size).toBe(40);
		const dueAt = new Map(
			(await query<{ message_id: string; next_attempt: number }>(current(), 'SELECT message_id, next_attempt FROM outbox')).map((row) => [
				row.message_id,
				row.next_attempt,
			]),
		);
		for (const claim of claims) {
			const due = claim.map((id) => dueAt.get(id)!);
			expect(due).toEqual([...due].sort((a, b) => a - b));
		}
	});

	it('renews and releases the leases of a node (all, or those named), and says when the next entry is due, a lease running out included', async () => {
		const { outgoing } = current();
		expect(await outgoing.nextDue(NOW)).toBeUndefined();
		const later = await queued(NOW + 5000);
		const soon = await queued(NOW + 1000);
		expect(await outgoing.nextDue(NOW)).toBe(NOW + 1000);
		expect(await outgoing.claimDue(NOW + 1000, 1, leaseTo('node-a', NOW + 2000))).toEqual([soon]);
		expect(await outgoing.nextDue(NOW + 1000)).toBe(NOW + 2001);
		await outgoing.renewLeases(leaseTo('node-a', NOW + 9000));
		expect(await outgoing.nextDue(NOW + 1000)).toBe(NOW + 5000);
		expect(await outgoing.claimDue(NOW + 6000, 10, leaseTo('node-b'))).toEqual([later]);
		// Named leases: only those the node holds, and only those named (node-b keeps `later`, node-a keeps `soon`).
		await outgoing.releaseLeases('node-b', [soon]);
		expect(await outgoing.claimDue(NOW + 6000, 10, leaseTo('node-c'))).toEqual([]);
		await outgoing.releaseLeases('node-a', [soon]);
		expect(await outgoing.claimDue(NOW + 6000, 10, leaseTo('node-b'))).toEqual([soon]);
		await outgoing.releaseLeases('node-b');
		expect(await outgoing.nextDue(NOW + 6000)).toBeUndefined();
		expect(await outgoing.nextDue(NOW)).toBe(NOW + 1000);
	});

	it('settles an attempt: delivered and failed stay so, the rest are retried or given up, the entry goes when none is left', async () => {
		const { outgoing } = current();
		const sent = message(['ok@remote.test', 'bad@remote.test', 'later@remote.test']);
		await outgoing.record(sent, leaseTo('node-a'));
		const { record: first } = await outgoing.settle(
			sent.id,
			new Map([
				['ok@remote.test', { status: 'delivered' }],
				['bad@remote.test', { status: 'permanent', error: '550 no such user' }],
				['later@remote.test', { status: 'temporary', error: '451 busy' }],
			]),
			NOW + 1000,
		);
		expect(first).toMatchObject({ status: 'queued', attempts: 1, lastError: '451 busy' });
		expect(first.recipients.map((r) => [r.status, r.error])).toEqual([
			['delivered', null],
			['failed', '550 no such user'],
			['queued', '451 busy'],
		]);
		expect(await query(current(), 'SELECT next_attempt, lease_node, lease_until FROM outbox')).toEqual([
			{ next_attempt: NOW + 1000, lease_node: null, lease_until: null },
		]);
		const { record: last } = await outgoing.settle(
			sent.id,
			new Map([['later@remote.test', { status: 'temporary', error: '451 still' }]]),
			null,
		);
		expect(last).toMatchObject({ status: 'failed', attempts: 2, lastError: 'gave up after 2 attempts: 451 still' });
		expect(await outgoing.entry(sent.id)).toBeUndefined();

		const delivered = message(['one@remote.test']);
		await outgoing.record(delivered, leaseTo('node-a'));
		expect((await outgoing.settle(delivered.id, new Map([['one@remote.test', { status: 'delivered' }]]), NOW)).record.status).toBe(
			'delivered',
		);
		expect(await query(current(), 'SELECT * FROM outbox')).toEqual([]);
	});

	it('records an event per change of a recipient status with the change, none for a recipient still queued; prunes old events', async () => {
		const { outgoing, deliveryEvents } = current();
		const sent = message(['ok@remote.test', 'later@remote.test']);
		await outgoing.record(sent, leaseTo('node-a'));
		const { events } = await outgoing.settle(
			sent.id,
			new Map([
				['ok@remote.test', { status: 'delivered' }],
				['later@remote.test', { status: 'temporary', error: '451 busy' }],
			]),
			NOW + 1000,
		);
		expect(events.map(({ accountId, event }) => [accountId, event.recipient, event.type])).toEqual([
			[account, 'ok@remote.test', 'delivered'],
		]);
		const [{ event }] = events;
		expect(await deliveryEvents.get(event._id)).toEqual(event);
		expect(await deliveryEvents.prune(event.time)).toBe(0);
		expect(await deliveryEvents.prune(new Date(Date.parse(event.time) + 1).toISOString())).toBe(1);
		expect(await deliveryEvents.get(event._id)).toBeUndefined();
	});

	it('marks local recipients delivered inside the transaction that stores their copies, and the message once none is pending', async () => {
		const { outgoing } = current();
		const sent = message(['a@local.test', 'b@remote.test']);
		await outgoing.record(sent, leaseTo('node-a'));
		await current().transaction((parts) => parts.outgoing.markDelivered(sent.id, ['a@local.test']));
		expect(await outgoing.get(sent.id)).toMatchObject({ status: 'queued' });
		expect((await outgoing.get(sent.id))?.recipients.map((r) => r.status)).toEqual(['delivered', 'queued']);

		const local = message(['c@local.test', 'd@local.test']);
		await outgoing.record(local, leaseTo('node-a'));
		await current().transaction((parts) => parts.outgoing.markDelivered(local.id, ['c@local.test', 'd@local.test']));
		// Read before the attempt settles: the status moved with the recipients.
		expect(await outgoing.get(local.id)).toMatchObject({ status: 'delivered', attempts: 0 });
	});

	it('lists sent mail newest first, and deletes the settled mail older than a time', async () => {
		const { outgoing } = current();
		const old = message(['a@remote.test'], { sent: '2026-01-01T00:00:00.000Z' });
		const pending = message(['b@remote.test'], { sent: '2026-01-02T00:00:00.000Z' });
		const recent = message(['c@remote.test'], { sent: '2026-06-01T00:00:00.000Z' });
		for (const sent of [old, pending, recent]) await outgoing.record(sent, leaseTo('node-a'));
		for (const sent of [old, recent])
			await outgoing.settle(sent.id, new Map([[sent.recipients[0].address, { status: 'delivered' }]]), null);
		expect((await outgoing.list(account, 10)).map((record) => record._id)).toEqual([recent.id, pending.id, old.id]);
		expect((await outgoing.list(account, 1)).map((record) => record._id)).toEqual([recent.id]);
		expect(await outgoing.deleteSettledBefore('2026-03-01T00:00:00.000Z', 10)).toBe(1);
		expect((await outgoing.list(account, 10)).map((record) => record._id)).toEqual([recent.id, pending.id]);
	});

	it('reads sent messages recorded before cc, bcc, notes and reports: all their recipients were To recipients, with no note or report', async () => {
		const recipients = [
			{ address: 'first@local.test', route: 'local', status: 'delivered', error: null },
			{ address: 'second@remote.test', route: 'relay', status: 'failed', error: '550 No such user here' },
		];
		await query(
			current(),
			`INSERT INTO outgoing_messages (id, account_id, from_address, subject, sent, recipients_json, status, last_error, attempts, thread_id)
				VALUES ('old-row', ?, 'old-rows@local.test', 'from before', '2026-01-02T03:04:05.678Z', ?, 'failed', '550 No such user here', 1,
					'old-thread')`,
			[account, JSON.stringify(recipients)],
		);
		expect(await current().outgoing.list(account, 10)).toEqual([
			{
				_id: 'old-row',
				threadId: 'old-thread',
				from: 'old-rows@local.test',
				to: ['first@local.test', 'second@remote.test'],
				cc: [],
				bcc: [],
				subject: 'from before',
				inReplyTo: null,
				status: 'failed',
				sent: '2026-01-02T03:04:05.678Z',
				lastError: '550 No such user here',
				attempts: 1,
				recipients: recipients.map((r) => ({
					...r,
					field: 'to',
					note: null,
					...NO_REPORT,
				})),
			},
		]);
	});
});
