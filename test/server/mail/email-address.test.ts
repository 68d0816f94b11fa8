import { describe, expect, it } from '@jest/globals';
import { isDomain, parseEmailAddress } from 'mailroom-server/dist/mail/email-address';

describe('parseEmailAddress', () => {
	it('lower-cases and trims, and splits local part and domain', () => {
		expect(parseEmailAddress('  Foo.Bar+Tag@Example.COM ')).toEqual({
			address: 'foo.bar+tag@example.com',
			local: 'foo.bar+tag',
			domain: 'example.com',
		});
	});

	it.each([
		'a@b.test',
		"o'brien@example.test",
		'x!#$%&*/=?^_`{|}~-@example.test',
		'first.last@sub.example.test',
		'a@localhost',
		'a@123.45.6.7',
		'user@xn--mller-kva.example',
		`${'l'.repeat(64)}@example.test`,
		`a@${'d'.repeat(63)}.test`,
	])('accepts %s', (input) => {
		expect(parseEmailAddress(input)?.address).toBe(input.toLowerCase());
	});

	it.each([
		['an empty string', ''],
		['no @', 'plainaddress'],
		['no local part', '@example.test'],
		['no domain', 'user@'],
		['two @', 'a@b@example.test'],
		['a leading dot', '.a@example.test'],
		['a trailing dot', 'a.@example.test'],
		['two dots in a row', 'a..b@example.test'],
		['a quoted local part', '"a b"@example.test'],
		['a space', 'a b@example.test'],
		['a local part over 64 characters', `${'l'.repeat(65)}@example.test`],
		['a domain label over 63 characters', `a@${'d'.repeat(64)}.test`],
		['a label starting with a hyphen', 'a@-x.test'],
		['a label ending with a hyphen', 'a@x-.test'],
		['an empty label', 'a@x..test'],
		['an underscore in the domain', 'a@x_y.test'],
		['an IP literal', 'a@[127.0.0.1]'],
		['non-ASCII letters', 'jürgen@example.test'],
		['a slash in the domain', 'a@example.test/../x'],
		['more than 254 characters', `${'l'.repeat(64)}@${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(63)}.test`],
	])('refuses %s', (_label, input) => {
		expect(parseEmailAddress(input)).toBeNull();
	});
});

describe('isDomain', () => {
	it.each(['example.test', 'localhost', 'a-b.c1.example', '1.2.3.4'])('accepts %s', (domain) => expect(isDomain(domain)).toBe(true));
	it.each(['', '.example', 'example.', 'Example.test', 'a..b', '-a.test', `${'x'.repeat(64)}.test`, `${'abc.'.repeat(63)}test`])(
		'refuses %j',
		(domain) => {
			expect(isDomain(domain)).toBe(false);
		},
	);
});
