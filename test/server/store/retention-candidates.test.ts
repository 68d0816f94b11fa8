import { describe, expect, it } from '@jest/globals';
import { ENGINES, insert, mailTo, storePerTest } from '../../helpers/stores';
import { queryValue } from '../../helpers/database';

describe.each(ENGINES)('RetentionCandidates: what the retention sweep may delete (%s)', (engine) => {
	const current = storePerTest(engine);

	it('hands the sweep the oldest messages in order, the overfull inboxes and what lies beyond their limit', async () => {
		const { messageState, retentionCandidates } = current();
		const at = Date.UTC(2026, 3, 1);
		const records = [];
		for (let i = 0; i < 5; i++) records.push((await insert(current(), mailTo(['full@x.test'], {}, new Date(at + i))))[0]);
		await insert(current(), mailTo(['light@x.test'], {}, new Date(at)));
		await messageState.setStar('full@x.test', records[1]._id, 'acct', true);

		const oldest = await retentionCandidates.oldest(0, 3);
		expect(oldest.map((message) => message.received)).toEqual([at, at + 1, at + 2]);
		expect(oldest[1].savedBy).toBe('acct');
		const rest = await retentionCandidates.oldest(oldest[2].seq, 10);
		expect(rest.map((message) => message.received)).toEqual([at + 3, at + 4, at]);

		expect(await retentionCandidates.inboxesOver(1)).toEqual(['full@x.test']);
		expect(await retentionCandidates.inboxesOver(5)).toEqual([]);
		// Unstarred, newest first: records 4, 3, 2 and 0 (1 is starred); beyond the newest 2 of them, 2 and 0.
		const seqOf = (id: string) => queryValue(current(), 'SELECT seq FROM messages WHERE id = ?', [id]);
		expect(await retentionCandidates.beyond('full@x.test', 2, 10)).toEqual([await seqOf(records[2]._id), await seqOf(records[0]._id)]);
		expect(await retentionCandidates.beyond('full@x.test', 1, 1)).toEqual([await seqOf(records[3]._id)]);
	});
});
