import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { onlyMessage } from '../../helpers/inboxes';
import { sendLarge, served } from '../../helpers/large-messages';
import { Spool } from 'mailroom-server/dist/smtp/spool';
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

describe('Spool.remove', () => {
	const dataDir = tempDataDir();
	afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

	it('never throws when a spooled message cannot be removed (the process crashed on EMFILE here), and removes one it can', () => {
		const spool = new Spool(dataDir, 1024);
		spool.sweep();
		const spoolPath = spool.create();
		writeFileSync(spoolPath, 'spooled');
		// A name longer than a file system takes: rmSync throws (ENAMETOOLONG), as it throws EMFILE when no descriptor is left.
		const unremovable = join(spool.dir, 'x'.repeat(300), 'message.eml');
		expect(() => spool.remove({ spoolPath: unremovable, byteLength: 7 })).not.toThrow();
		spool.remove({ spoolPath, byteLength: 7 });
		expect(existsSync(spoolPath)).toBe(false);
	});
});
