import { describe, expect, it } from '@jest/globals';
import { UnrecordedWork } from 'mailroom-server/dist/work/unrecorded-work';
import { ENGINES, storePerTest } from '../../helpers/stores';

const NOW = Date.UTC(2026, 9, 1);
const leaseTo = (node: string) => ({ node, until: NOW + 60_000 });
const delivery = {
	messageId: 'message-1',
	accountId: 'account-1',
	address: 'hooked@x.test',
	url: 'https://hook.test/',
	kind: 'webhook',
} as const;

describe.each(ENGINES)('UnrecordedWork: the leases of attempts whose outcome was not recorded, given back after a pause (%s)', (engine) => {
	const current = storePerTest(engine);

	it('gives each lease back once its pause is over, for any node to claim, and keeps it while giving back fails', async () => {
		const { webhookDeliveries } = current();
		const first = await webhookDeliveries.create(delivery, NOW);
		const second = await webhookDeliveries.create(delivery, NOW + 1); // due after the first: claimed in that order
		expect((await webhookDeliveries.claim(NOW + 1, 10, leaseTo('node-a'))).map((row) => row.id)).toEqual([first, second]);
		const release = (ids: string[]) => webhookDeliveries.releaseLeases('node-a', ids);
		const claimed = async (now: number) => (await webhookDeliveries.claim(now, 10, leaseTo('node-b'))).map((row) => row.id);

		const unrecorded = new UnrecordedWork(5000);
		expect(unrecorded.next()).toBe(Infinity);
		unrecorded.add(first, NOW);
		unrecorded.add(second, NOW + 1000);
		expect(unrecorded.next()).toBe(NOW + 5000);

		await unrecorded.giveBack(NOW + 4999, release);
		expect(await claimed(NOW + 4999)).toEqual([]);
		await expect(unrecorded.giveBack(NOW + 5000, () => Promise.reject(new Error('the database is away')))).rejects.toThrow(
			'the database is away',
		);
		expect(unrecorded.next()).toBe(NOW + 5000);

		await unrecorded.giveBack(NOW + 5000, release);
		expect(await claimed(NOW + 5000)).toEqual([first]);
		expect(unrecorded.next()).toBe(NOW + 6000);
		await unrecorded.giveBack(NOW + 6000, release);
		expect(await claimed(NOW + 6000)).toEqual([second]);
		expect(unrecorded.next()).toBe(Infinity);
	});
});
