import { describe, expect, it } from '@jest/globals';
import { Readable } from 'node:stream';
import { pacedBase64, pacedContent, WHOLE_CONTENT_BYTES } from 'mailroom-server/dist/outbound/paced-content';

/** Everything a paced stream yields, with how many pieces it came in. */
async function drained(content: Readable): Promise<{ bytes: Buffer; pieces: number }> {
	const chunks: Buffer[] = [];
	for await (const chunk of content) chunks.push(chunk as Buffer);
	return { bytes: Buffer.concat(chunks), pieces: chunks.length };
}

describe('pacedContent', () => {
	it('gives content up to WHOLE_CONTENT_BYTES whole, as it came', () => {
		const text = 'é'.repeat(WHOLE_CONTENT_BYTES / 2);
		expect(pacedContent(text)).toBe(text);
	});

	it('gives a larger text as its UTF-8 in pieces, no piece ending inside a surrogate pair', async () => {
		// A piece holds 21,888 UTF-16 units of text: put an emoji's two units across every such boundary.
		const span = 21_888;
		const text = Array.from({ length: 16 }, () => `${'a'.repeat(span - 1)}😀`).join('');
		const paced = pacedContent(text);
		expect(paced).toBeInstanceOf(Readable);
		const { bytes, pieces } = await drained(paced as Readable);
		expect(pieces).toBeGreaterThan(10);
		expect(bytes.equals(Buffer.from(text))).toBe(true);
	});
});

describe('pacedBase64', () => {
	it('decodes base64 of up to WHOLE_CONTENT_BYTES whole, and larger base64 in pieces that join back to its bytes', async () => {
		const small = Buffer.from(Array.from({ length: WHOLE_CONTENT_BYTES }, (_, i) => i % 256));
		expect((pacedBase64(small.toString('base64')) as Buffer).equals(small)).toBe(true);
		// Padded at the end, so the last piece holds the = signs.
		const bytes = Buffer.from(Array.from({ length: 300_001 }, (_, i) => i % 251));
		const paced = pacedBase64(bytes.toString('base64'));
		expect(paced).toBeInstanceOf(Readable);
		const { bytes: joined, pieces } = await drained(paced as Readable);
		expect(pieces).toBe(Math.ceil(bytes.length / (3 * 57 * 384)));
		expect(joined.equals(bytes)).toBe(true);
	});
});
