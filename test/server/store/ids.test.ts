import { newId } from '../../../dist/server/store/ids';

describe('newId', () => {
	it('gives distinct 16-character URL-safe ids, also across refills of its random pool', () => {
		const ids = Array.from({ length: 5000 }, () => newId());
		expect(ids.every((id) => /^[A-Za-z0-9_-]{16}$/.test(id))).toBe(true);
		expect(new Set(ids).size).toBe(ids.length);
	});
});
