import { describe, expect, it } from '@jest/globals';
import { FAILED_AUTH_WINDOW_MS, FailedAuthLimit, MAX_FAILED_AUTH, clientGroup } from 'mailroom-server/dist/smtp/failed-auth-limit';

/** A limit on a clock the test moves. */
function limitAt(start = 1_000_000) {
	const clock = { now: start };
	return { clock, limit: new FailedAuthLimit(MAX_FAILED_AUTH, FAILED_AUTH_WINDOW_MS, () => clock.now) };
}

describe('FailedAuthLimit', () => {
	it('blocks an address at its 10th failure within 15 minutes, and no other address', () => {
		const { limit } = limitAt();
		expect([MAX_FAILED_AUTH, FAILED_AUTH_WINDOW_MS]).toEqual([10, 15 * 60_000]);
		for (let i = 0; i < 9; i++) limit.failed('192.0.2.1');
		expect(limit.blocked('192.0.2.1')).toBe(false);
		limit.failed('192.0.2.1');
		expect(limit.blocked('192.0.2.1')).toBe(true);
		expect(limit.blocked('192.0.2.2')).toBe(false);
	});

	it('lets the address try again once the window that its first failure started has ended', () => {
		const { clock, limit } = limitAt();
		for (let i = 0; i < 10; i++) limit.failed('192.0.2.1');
		clock.now += FAILED_AUTH_WINDOW_MS - 1;
		expect(limit.blocked('192.0.2.1')).toBe(true);
		clock.now += 1;
		expect(limit.blocked('192.0.2.1')).toBe(false);
		// A new window: nine more failures are not enough.
		for (let i = 0; i < 9; i++) limit.failed('192.0.2.1');
		expect(limit.blocked('192.0.2.1')).toBe(false);
	});

	it('remembers at most 10,000 addresses, forgetting the oldest window first', () => {
		const { limit } = limitAt();
		for (let i = 0; i < 10; i++) limit.failed('198.51.100.1');
		for (let i = 0; i < 9_999; i++) limit.failed(`10.0.${i >> 8}.${i & 255}`);
		expect(limit.blocked('198.51.100.1')).toBe(true);
		limit.failed('203.0.113.1');
		expect(limit.blocked('198.51.100.1')).toBe(false);
		expect((limit as unknown as { windows: Map<string, unknown> }).windows.size).toBe(10_000);
	});
});

describe('clientGroup: what a failure counts against', () => {
	it('is an IPv4 address itself, and an IPv6 address its /64, however it is written', () => {
		expect(clientGroup('192.0.2.1')).toBe('192.0.2.1');
		expect(clientGroup('::ffff:192.0.2.1')).toBe('192.0.2.1');
		expect(clientGroup('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
		expect(clientGroup('2001:0db8:0001:0002:ffff::1')).toBe('2001:db8:1:2::/64');
		expect(clientGroup('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
		expect(clientGroup('::1')).toBe('::/64');
	});

	it('blocks every address of a /64 together once they failed 10 times between them', () => {
		const { limit } = limitAt();
		for (let i = 0; i < 10; i++) limit.failed(clientGroup(`2001:db8:1:2::${i + 1}`));
		expect(limit.blocked(clientGroup('2001:db8:1:2:abcd::99'))).toBe(true);
		expect(limit.blocked(clientGroup('2001:db8:1:3::1'))).toBe(false);
	});
});
