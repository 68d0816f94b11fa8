import { ConfigError, resolveConfig } from 'mailroom-server/dist/config/settings';

describe('retention settings', () => {
	it('have the documented defaults: 30 days, 10,000 per inbox, a sweep a minute', () => {
		expect(resolveConfig({}, {})).toMatchObject({
			retentionMaxAge: 30 * 86_400_000,
			retentionMaxPerInbox: 10_000,
			retentionSweepInterval: 60_000,
		});
	});

	it('read MAILROOM_* variables, flags over them, and 0 turns a limit off', () => {
		const env = { MAILROOM_RETENTION_MAX_AGE: '12h', MAILROOM_RETENTION_MAX_PER_INBOX: '0', MAILROOM_RETENTION_SWEEP_INTERVAL: '30s' };
		expect(resolveConfig({}, env)).toMatchObject({ retentionMaxAge: 43_200_000, retentionMaxPerInbox: 0, retentionSweepInterval: 30_000 });
		expect(resolveConfig({ retentionMaxAge: '0', retentionMaxPerInbox: '50' }, env)).toMatchObject({
			retentionMaxAge: 0,
			retentionMaxPerInbox: 50,
		});
	});

	it.each([
		['retentionMaxAge', '30'],
		['retentionMaxAge', '-1d'],
		['retentionMaxPerInbox', '-1'],
		['retentionMaxPerInbox', 'many'],
		['retentionSweepInterval', '0'],
	] as const)('refuses %s = %j with a ConfigError naming the value', (key, value) => {
		expect(() => resolveConfig({ [key]: value }, {})).toThrow(ConfigError);
		expect(() => resolveConfig({ [key]: value }, {})).toThrow(value);
	});
});
