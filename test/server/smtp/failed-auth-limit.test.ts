import { describe, expect, it } from '@jest/globals';
import { FAILED_AUTH_WINDOW_MS, FailedAuthLimit, MAX_FAILED_AUTH } from 'mailroom-server/dist/smtp/failed-auth-limit';

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
