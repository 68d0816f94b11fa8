import { describe, expect, it } from '@jest/globals';
import { Readiness } from 'mailroom-server/dist/http/readiness';
import { storePerTest } from '../../helpers/stores';

/**
 * What /readyz reports in the moments a running server's tests cannot catch: before the start has finished, with a
 * listener closed, and under many checks at once. The store is a real one; only the listeners' state is given.
 */
describe('Readiness', () => {
	const store = storePerTest('sqlite');

	/** The readiness of `store`, with the listeners as given, counting the store's checks. */
	function readinessOf(listening = { smtp: true, http: true }) {
		const checks = { count: 0 };
		const readiness = new Readiness({
			ping: () => {
				checks.count++;
				return store().ping();
			},
			listening: { smtp: () => listening.smtp, http: () => listening.http },
		});
		return { readiness, checks };
	}

	it('is not ready while the server is starting, and leaves the store unchecked then', async () => {
		const { readiness, checks } = readinessOf();
		expect(await readiness.report()).toEqual({
			ready: false,
			phase: 'starting',
			checks: { store: 'unchecked', smtp: 'listening', http: 'listening' },
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
			checks: { store: 'ok', smtp: 'closed', http: 'listening' },
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
});
