import { describe, expect, it } from '@jest/globals';
import { ByteHead } from 'mailroom-server/dist/bytes/byte-head';

describe('ByteHead: the start of a body streaming past, and its whole size', () => {
	it('keeps everything of a body within the limit', () => {
		const head = new ByteHead(10);
		head.add(Buffer.from('abc'));
		head.add(Buffer.from('def'));
		expect(head.result()).toEqual({ head: Buffer.from('abcdef'), bytes: 6 });
	});

	it('keeps the first bytes across pieces and counts the rest', () => {
		const head = new ByteHead(5);
		for (const piece of ['abc', 'defgh', 'ijk']) head.add(Buffer.from(piece));
		expect(head.result()).toEqual({ head: Buffer.from('abcde'), bytes: 11 });
	});

	it('does not end the head inside a UTF-8 character the cut split', () => {
		const text = 'ab€€'; // € is 3 bytes: the cut at 4 falls inside the first one
		const head = new ByteHead(4);
		head.add(Buffer.from(text));
		const { head: kept, bytes } = head.result();
		expect(kept.toString('utf8')).toBe('ab');
		expect(bytes).toBe(Buffer.byteLength(text));
	});

	it('keeps a whole character that ends exactly at the limit', () => {
		const head = new ByteHead(5);
		head.add(Buffer.from('ab€cd'));
		expect(head.result().head.toString('utf8')).toBe('ab€');
	});

	it('copies what it keeps, so a reused buffer does not change it', () => {
		const piece = Buffer.from('abc');
		const head = new ByteHead(3);
		head.add(piece);
		piece.write('xyz');
		expect(head.result().head.toString()).toBe('abc');
	});
});
