import { describe, expect, it } from '@jest/globals';
import { withoutPlusTag } from 'mailroom-server/dist/mail/plus-address';

describe('withoutPlusTag', () => {
	it.each([
		['name+tag@example.test', 'name@example.test'],
		['name+@example.test', 'name@example.test'],
		['name+one+two@example.test', 'name@example.test'],
		['first.last+news@example.test', 'first.last@example.test'],
		['name@example.test', 'name@example.test'],
		['+tag@example.test', '+tag@example.test'],
		['name@plus+domain.test', 'name@plus+domain.test'],
	])('%s → %s', (address, base) => expect(withoutPlusTag(address)).toBe(base));
});
