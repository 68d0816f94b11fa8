import { describe, expect, it } from '@jest/globals';
import { credits, listOutgoing, postOutgoing, senderAccount, sendingSetup } from '../../helpers/outgoing';

describe('the credits of outgoing mail', () => {
	const setup = sendingSetup();

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
