import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { onlyMessage } from '../../helpers/inboxes';
import { sendLarge, served } from '../../helpers/large-messages';
import { sameStore, startTestMailroom, tempDataDir } from '../../helpers/mailroom';

describe('the spool folder across a restart', () => {
	const dataDir = tempDataDir();
	afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

	it('large messages are still there, and what a crash left in the spool folder is swept', async () => {
		const first = await startTestMailroom({ dataDir, spoolThreshold: 64 * 1024 });
		await sendLarge(first, 'kept@spool.test');
		const before = await served(first, 'kept@spool.test', (await onlyMessage(first, 'kept@spool.test'))._id);
		await first.stop({ removeData: false });
		// What a crash in the middle of a message leaves behind.
		const leftover = join(dataDir, 'spool', 'crashed');
		mkdirSync(leftover, { recursive: true });
		writeFileSync(join(leftover, 'message.eml'), 'partial');

		const second = await startTestMailroom({ ...sameStore(first), spoolThreshold: 64 * 1024 });
		try {
			expect(existsSync(leftover)).toBe(false);
			const after = await served(second, 'kept@spool.test', before.record._id);
			expect(after.record).toEqual(before.record);
			expect(after.raw.equals(before.raw)).toBe(true);
			expect(after.attachmentBytes.every((bytes, i) => bytes.equals(before.attachmentBytes[i]))).toBe(true);
		} finally {
			await second.stop({ removeData: false });
		}
	});
});
