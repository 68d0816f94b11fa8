import { describe, expect, it } from '@jest/globals';
import { credits, listOutgoing, postOutgoing, senderAccount, sendingSetup } from '../../helpers/outgoing';
import { query } from '../../helpers/database';

describe('the credits of outgoing mail', () => {
	const setup = sendingSetup();

	it('reads sent messages recorded before cc and bcc: all their recipients were To recipients', async () => {
		const { server } = setup;
		const old = await senderAccount(server, 'old-rows', 'old-rows@local.test', 0);
		const recipients = [
			{ address: 'first@local.test', route: 'local', status: 'delivered', error: null },
			{ address: 'second@remote.test', route: 'relay', status: 'failed', error: '550 No such user here' },
		];
		await query(
			server,
			`INSERT INTO outgoing_messages (id, account_id, from_address, subject, sent, recipients_json, status, last_error, attempts)
				VALUES ('old-row', ?, 'old-rows@local.test', 'from before', '2026-01-02T03:04:05.678Z', ?, 'failed', '550 No such user here', 1)`,
			[old.id, JSON.stringify(recipients)],
		);
		expect(await listOutgoing(server, old.key)).toEqual([
			{
				_id: 'old-row',
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
				recipients: recipients.map((r) => ({ ...r, field: 'to' })),
			},
		]);
	});

	it('never overspends under concurrent sends', async () => {
		const { server } = setup;
		const busy = await senderAccount(server, 'busy', 'busy@local.test', 7);
		const results = await Promise.all(
			Array.from({ length: 12 }, (_, i) =>
				postOutgoing(server, busy.key, {
					from: 'busy@local.test',
					to: [`c${i}a@local.test`, `c${i}b@remote.test`],
					subject: `c${i}`,
					text: 't',
				}),
			),
		);
		const statuses = results.map((r) => r.status).sort();
		expect(statuses).toEqual([...Array<number>(3).fill(200), ...Array<number>(9).fill(402)]);
		expect(await credits(server, busy.key)).toBe(1);
		expect(await listOutgoing(server, busy.key)).toHaveLength(3);
		expect(
			results
				.filter((r) => r.status === 200)
				.map((r) => r.body.creditsRemaining)
				.sort(),
		).toEqual([1, 3, 5]);
	});
});
