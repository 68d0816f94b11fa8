import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { DiskSpace } from 'mailroom-server/dist/http/disk-space';
import { Readiness } from 'mailroom-server/dist/http/readiness';
import { dataDirs } from '../../helpers/mailroom';
import { storePerTest } from '../../helpers/stores';

/**
 * What /readyz reports in the moments a running server's tests cannot catch: before the start has finished, with a
 * listener closed, and under many checks at once. The store is a real one; only the listeners' state is given.
 */
describe('Readiness', () => {
	const store = storePerTest('sqlite');

	const newDataDir = dataDirs();

	/** The readiness of `store`, with the listeners as given and the disk of a new data folder, counting the store's checks. */
	function readinessOf(listening = { smtp: true, http: true }, disk = new DiskSpace({ folders: [newDataDir()], needed: 1 })) {
		const checks = { count: 0 };
		const readiness = new Readiness({
			ping: () => {
				checks.count++;
				return store().ping();
			},
			listening: { smtp: () => listening.smtp, http: () => listening.http },
			disk,
		});
		return { readiness, checks };
	}

	/** The error a write into a full disk fails with: /dev/full's, which is always full. */
	function noSpaceLeft(): Error {
		try {
			writeFileSync('/dev/full', 'x');
		} catch (err) {
			return err as Error;
		}
		throw new Error('a write into /dev/full succeeded');
	}

	it('is not ready while the server is starting, and leaves the store unchecked then', async () => {
		const { readiness, checks } = readinessOf();
		expect(await readiness.report()).toEqual({
			ready: false,
			phase: 'starting',
			checks: { store: 'unchecked', disk: 'unchecked', smtp: 'listening', http: 'listening' },
			problems: ['the server is starting'],
		});
		expect(checks.count).toBe(0);
		readiness.running();
		expect(await readiness.report()).toMatchObject({ ready: true, phase: 'running', checks: { store: 'ok' } });
	});

	it('is not ready with a listener closed, saying which', async () => {
		const { readiness } = readinessOf({ smtp: false, http: true });
		readiness.running();
		expect(await readiness.report()).toEqual({
			ready: false,
			phase: 'running',
			checks: { store: 'ok', disk: 'ok', smtp: 'closed', http: 'listening' },
			problems: ['the SMTP listener is closed'],
		});
	});

	it('asks the store once for many checks at once, and again only after a second', async () => {
		const { readiness, checks } = readinessOf();
		readiness.running();
		const reports = await Promise.all(Array.from({ length: 50 }, () => readiness.report()));
		expect(reports.every((report) => report.ready)).toBe(true);
		expect(checks.count).toBe(1);
		await readiness.report();
		expect(checks.count).toBe(1);
		await new Promise((resolve) => setTimeout(resolve, 1100));
		await readiness.report();
		expect(checks.count).toBe(2);
	});

	it('is not ready while a folder has less room than one message, naming its disk once for folders on the same one', async () => {
		const dataDir = newDataDir();
		const spool = join(dataDir, 'spool');
		mkdirSync(spool);
		// No disk here has room for a message of 64 TB.
		const disk = new DiskSpace({ folders: [dataDir, spool], needed: 64 * 1024 ** 4 });
		const { readiness } = readinessOf(undefined, disk);
		readiness.running();
		const report = await readiness.report();
		expect(report).toMatchObject({ ready: false, checks: { store: 'ok', disk: 'full' } });
		expect(report.problems).toEqual([
			expect.stringMatching(
				new RegExp(
					`^the disk of ${dataDir} has \\d+(\\.\\d)? [KMG]?B free, less than one message of the largest size \\(65536 GB\\): ` +
						'mail may be refused with 451 until space is freed$',
				),
			),
		]);
	});

	it('is not ready for a while after mail could not be stored for lack of space, unless mail is stored meanwhile', async () => {
		const disk = new DiskSpace({ folders: [newDataDir()], needed: 1, failureMemoryMs: 300 });
		const { readiness } = readinessOf(undefined, disk);
		readiness.running();
		// Failures of other kinds say nothing of the disk.
		disk.failed(Object.assign(new Error('the ingest thread stopped'), { code: 'ERR_WORKER_EXIT' }));
		expect(await readiness.report()).toMatchObject({ ready: true, checks: { disk: 'ok' } });

		disk.failed(noSpaceLeft());
		expect(await readiness.report()).toMatchObject({
			ready: false,
			checks: { disk: 'full' },
			problems: ['storing a message failed for lack of space 0 s ago: ENOSPC: no space left on device, write'],
		});
		disk.stored();
		expect(await readiness.report()).toMatchObject({ ready: true, checks: { disk: 'ok' } });

		disk.failed(noSpaceLeft());
		expect((await readiness.report()).ready).toBe(false);
		await new Promise((resolve) => setTimeout(resolve, 350));
		expect(await readiness.report()).toMatchObject({ ready: true, checks: { disk: 'ok' }, problems: [] });
	});
});
