import { describe, expect, it } from '@jest/globals';
import { countRows } from '../../helpers/inboxes';
import { ENGINES, mailTo, storePerTest } from '../../helpers/stores';

describe.each(ENGINES)('Store.transaction: writes grouped into one commit (%s)', (engine) => {
	const current = storePerTest(engine);

	it('rolls a failed transaction back alone: the others of its group commit stay', async () => {
		const store = current();
		const outcomes = await Promise.allSettled([
			store.transaction((parts) => parts.messages.insert(mailTo(['kept@x.test']))),
			store.transaction(async (parts) => {
				await parts.messages.insert(mailTo(['lost@x.test']));
				throw new Error('this write fails');
			}),
			store.transaction((parts) => parts.messages.insert(mailTo(['kept@x.test']))),
		]);
		expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
		expect(await store.messages.count('kept@x.test')).toBe(2);
		expect(await store.messages.count('lost@x.test')).toBe(0);
		expect(await countRows(store, 'contents')).toBe(2);
	});
});
