import { describe, expect, it } from '@jest/globals';
import { newId } from 'mailroom-server/dist/store/ids';

const tick = () => new Promise((resolve) => setTimeout(resolve, 2));

describe('newId', () => {
	it('gives distinct 16-character URL-safe ids that do not start with a dash (a command line would read an option), also across refills of its random pool', () => {
		const ids = Array.from({ length: 5000 }, () => newId());
		expect(ids.every((id) => /^[A-Za-z0-9_][A-Za-z0-9_-]{15}$/.test(id))).toBe(true);
		expect(new Set(ids).size).toBe(ids.length);
	});

	it('makes ids that sort as text in the order they were made, from one millisecond to the next', async () => {
		const ids: string[] = [];
		for (let i = 0; i < 20; i++) {
			ids.push(newId());
			await tick();
		}
		// Byte order, as SQLite compares text.
		expect([...ids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))).toEqual(ids);
	});

	it('keeps 48 random bits after the time: ids made in the same millisecond still differ widely', () => {
		const sameMs = Array.from({ length: 50 }, () => newId()).filter((id, _, all) => id.slice(0, 8) === all[0].slice(0, 8));
		expect(new Set(sameMs.map((id) => id.slice(8))).size).toBe(sameMs.length);
	});
});
