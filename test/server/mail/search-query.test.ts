import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { MAX_CONDITIONS, SearchQueryError, parseSearchQuery, type SearchCondition } from 'mailroom-server/dist/mail/search-query';

const conditions = (query: string) => parseSearchQuery(query).conditions;
const text = (value: string, field = 'any', negated = false): SearchCondition =>
	({ kind: 'text', field, text: value, negated }) as SearchCondition;
const refused = (query: string, message: RegExp) => {
	expect(() => parseSearchQuery(query)).toThrow(SearchQueryError);
	expect(() => parseSearchQuery(query)).toThrow(message);
};

describe('the search query language', () => {
	it('reads words and quoted phrases, separated by any whitespace, all to hold', () => {
		expect(conditions('invoice')).toEqual([text('invoice')]);
		expect(conditions('  invoice\t"order 42"\n überweisung ')).toEqual([text('invoice'), text('order 42'), text('überweisung')]);
		// A quote inside a word is part of it; a quoted part ends its condition.
		expect(conditions('5" "a"b')).toEqual([text('5"'), text('a'), text('b')]);
		// No OR: it is a word like any other.
		expect(conditions('a OR b')).toEqual([text('a'), text('OR'), text('b')]);
	});

	it('reads escapes in quotes only, and runs a quote left open to the end', () => {
		expect(conditions(String.raw`"say \"hi\" \\ now"`)).toEqual([text(String.raw`say "hi" \ now`)]);
		expect(conditions(String.raw`"C:\path\n"`)).toEqual([text(String.raw`C:\path\n`)]);
		expect(conditions(String.raw`back\slash`)).toEqual([text(String.raw`back\slash`)]);
		expect(conditions('"order 4')).toEqual([text('order 4')]);
		expect(conditions('from:"Ann Lee')).toEqual([text('Ann Lee', 'from')]);
	});

	it('reads from:, to: and subject: with a word or a quoted value, operator names in any case', () => {
		expect(conditions('from:billing TO:alice@example.test Subject:"your receipt"')).toEqual([
			text('billing', 'from'),
			text('alice@example.test', 'to'),
			text('your receipt', 'subject'),
		]);
		// Colons in a value are the value's.
		expect(conditions('subject:re:invoice')).toEqual([text('re:invoice', 'subject')]);
	});

	it('reads states and labels, is:unread as is:read negated', () => {
		expect(conditions('has:attachment HAS:Attachments is:read is:UNREAD is:starred label:Paid')).toEqual([
			{ kind: 'attachment', negated: false },
			{ kind: 'attachment', negated: false },
			{ kind: 'read', negated: false },
			{ kind: 'read', negated: true },
			{ kind: 'starred', negated: false },
			{ kind: 'label', label: 'Paid', negated: false },
		]);
		expect(conditions('-is:unread -is:read -label:"to do"')).toEqual([
			{ kind: 'read', negated: false },
			{ kind: 'read', negated: true },
			{ kind: 'label', label: 'to do', negated: true },
		]);
	});

	it('reads sender authentication: spf:, dkim:, dmarc: with a result in any case, and is:authenticated', () => {
		expect(conditions('spf:pass DKIM:Fail dmarc:none -is:authenticated -dmarc:PERMERROR')).toEqual([
			{ kind: 'auth', method: 'spf', result: 'pass', negated: false },
			{ kind: 'auth', method: 'dkim', result: 'fail', negated: false },
			{ kind: 'auth', method: 'dmarc', result: 'none', negated: false },
			{ kind: 'authenticated', negated: true },
			{ kind: 'auth', method: 'dmarc', result: 'permerror', negated: true },
		]);
		refused('spf:ok', /^spf:ok is not known: spf: takes pass, fail, softfail, neutral, none, temperror, permerror$/);
	});

	it('reads dates as midnight UTC and ISO 8601 times as UTC unless they carry an offset', () => {
		expect(conditions('after:2026-11-01 before:2026-12-01')).toEqual([
			{ kind: 'after', time: Date.UTC(2026, 10, 1), negated: false },
			{ kind: 'before', time: Date.UTC(2026, 11, 1), negated: false },
		]);
		const times = [
			['2026-11-25T09:30:00Z', Date.UTC(2026, 10, 25, 9, 30)],
			['2026-11-25T09:30', Date.UTC(2026, 10, 25, 9, 30)],
			['2026-11-25t09:30:15.5z', Date.UTC(2026, 10, 25, 9, 30, 15, 500)],
			['2026-11-25T09:30:15.123456+02:00', Date.UTC(2026, 10, 25, 7, 30, 15, 123)],
			['2026-11-25T09:30-0530', Date.UTC(2026, 10, 25, 15, 0)],
			['2024-02-29', Date.UTC(2024, 1, 29)],
		] as const;
		for (const [value, time] of times) expect(conditions(`before:${value}`)).toEqual([{ kind: 'before', time, negated: false }]);
		expect(conditions('-after:"2026-11-25 09:30"')).toEqual([{ kind: 'after', time: Date.UTC(2026, 10, 25, 9, 30), negated: true }]);
	});

	it('negates any condition with a leading -, and takes a lone - as a word', () => {
		expect(conditions('-spam -"order 42" -from:noreply - --x')).toEqual([
			text('spam', 'any', true),
			text('order 42', 'any', true),
			text('noreply', 'from', true),
			text('-'),
			text('-x', 'any', true),
		]);
	});

	it('refuses an unknown operator, naming it and listing the operators; quoted, it is text', () => {
		refused(
			'invoice foo:bar',
			/^foo: is not an operator of search \(to look for it as text, put it in quotes\): the query takes words, "quoted phrases", from:, to:, subject:, label:, after:, before:, has:attachment, is:read, is:unread, is:starred/,
		);
		refused('https://example.test', /^https: is not an operator/);
		refused('-constructor:x', /^constructor: is not an operator/);
		expect(conditions('"https://example.test" "re:"')).toEqual([text('https://example.test'), text('re:')]);
		// Not letters before the colon: not an operator.
		expect(conditions('12:30 :x a1:b')).toEqual([text('12:30'), text(':x'), text('a1:b')]);
	});

	it('refuses malformed values, saying what is expected', () => {
		refused(
			'before:yesterday',
			/^before:yesterday is not a date: give YYYY-MM-DD \(midnight UTC\) or an ISO 8601 time such as 2026-11-25T09:30:00Z/,
		);
		for (const value of [
			'2026-02-30',
			'2026-13-01',
			'2026-11-25T24:00',
			'2026-11-25T09:60',
			'2026-11-25T09:30+25:00',
			'0099-01-01',
			'26-11-25',
			'2026-11-25T9:30',
		]) {
			refused(`after:${value}`, /is not a date/);
		}
		refused('is:new', /^is:new is not known: is: takes read, unread, starred or authenticated$/);
		refused('has:pdf', /^has:pdf is not known: has: takes attachment$/);
		refused('from:', /^from: needs a value/);
		refused('label: x', /^label: needs a value/);
		refused('subject:""', /^Empty quotes/);
		refused('a "" b', /^Empty quotes/);
	});

	it('refuses an empty query and one of too many conditions', () => {
		for (const query of ['', '   ', '\n\t']) refused(query, /^The query is empty: give words, "quoted phrases", from:/);
		expect(conditions(Array.from({ length: MAX_CONDITIONS }, (_, i) => `w${i}`).join(' '))).toHaveLength(MAX_CONDITIONS);
		refused(Array.from({ length: MAX_CONDITIONS + 1 }, (_, i) => `w${i}`).join(' '), /has 21 conditions: at most 20/);
	});

	it('parses any query into conditions or refuses it with a SearchQueryError, never another error', () => {
		fc.assert(
			fc.property(
				fc.string({ unit: fc.constantFrom(...'ab -:"\\ \tfrom:is:read before:2026-01-01 has:label:x'.split('')), maxLength: 60 }),
				(query) => {
					try {
						const parsed = parseSearchQuery(query);
						expect(parsed.conditions.length).toBeGreaterThan(0);
					} catch (err) {
						expect(err).toBeInstanceOf(SearchQueryError);
					}
				},
			),
			{ numRuns: 2000 },
		);
	});

	it('finds every word of a query of plain words, as written', () => {
		const word = fc.string({ unit: fc.constantFrom(...'abcXYZ19éж\\'.split('')), minLength: 1, maxLength: 8 });
		fc.assert(
			fc.property(fc.array(word, { minLength: 1, maxLength: MAX_CONDITIONS }), (words) => {
				expect(conditions(words.join(' '))).toEqual(words.map((one) => text(one)));
			}),
		);
	});
});
