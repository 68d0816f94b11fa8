import { statSync } from 'node:fs';
import { join } from 'node:path';
import { startTestMailroom } from '../../helpers/mailroom';

describe('Checkpointer', () => {
	it('copies committed mail from the WAL into the database file in the background', async () => {
		const server = await startTestMailroom();
		try {
			const databaseFile = join(server.config.dataDir, 'mailroom.sqlite');
			const before = statSync(databaseFile).size;
			for (let i = 0; i < 10; i++) {
				await server.send({ from: 'a@sender.test', to: `cp${i}@example.test`, subject: `checkpoint ${i}`, text: 'x'.repeat(20_000) });
			}
			// The main connection never checkpoints on commit (wal_autocheckpoint = 0): only the worker can grow the file.
			expect(server.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
			const deadline = Date.now() + 10_000;
			while (statSync(databaseFile).size <= before + 100_000 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
			expect(statSync(databaseFile).size).toBeGreaterThan(before + 100_000);
		} finally {
			await server.stop();
		}
	});
});
