import { describe, expect, it } from '@jest/globals';
import { crlfTextPieces, headerObject } from 'mailroom-server/dist/payload/body-props';
import { parseRetryAfter } from 'mailroom-server/dist/webhooks/webhook-sender';

describe('webhook and websocket body properties', () => {
	it('joins the values of a repeated header with a newline, in order, and keeps single ones as they are', () => {
		expect(
			headerObject([
				['received', 'from a'],
				['subject', 'Hi'],
				['received', 'from b'],
				['received', 'from c'],
			]),
		).toEqual({ received: 'from a\nfrom b\nfrom c', subject: 'Hi' });
	});

	it('does not let a header named like an Object property misbehave', () => {
		expect(
			headerObject([
				['constructor', 'x'],
				['__proto__', 'y'],
			]),
		).toEqual(
			Object.fromEntries([
				['constructor', 'x'],
				['__proto__', 'y'],
			]),
		);
	});

	it('writes every line break as CRLF', () => {
		expect([...crlfTextPieces(Buffer.from('a\nb\r\nc\n\nd'))].join('')).toBe('a\r\nb\r\nc\r\n\r\nd');
	});
});

describe('Retry-After', () => {
	it('reads seconds and HTTP dates, and ignores anything else', () => {
		const now = Date.parse('2026-11-22T10:00:00Z');
		expect(parseRetryAfter('120', now)).toBe(120_000);
		expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
		expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
		expect(parseRetryAfter('soon', now)).toBeUndefined();
		expect(parseRetryAfter(undefined, now)).toBeUndefined();
	});
});
