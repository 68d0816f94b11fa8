import { describe, expect, it } from '@jest/globals';
import { crlfTextPieces, headerObject } from 'mailroom-server/dist/payload/body-props';
import { joinedText } from '../../helpers/cuts';

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

	it('writes every line break as CRLF', async () => {
		expect(await joinedText(crlfTextPieces(Buffer.from('a\nb\r\nc\n\nd')))).toBe('a\r\nb\r\nc\r\n\r\nd');
	});
});
