import { expect } from '@jest/globals';
import { createHash, verify, type KeyObject } from 'node:crypto';

/**
 * Checks a DKIM-Signature (relaxed/relaxed, rsa-sha256) against the public key, as a receiver would (RFC 6376 3.4.2, 3.4.4, 3.7):
 * the body hash and the signature over the signed headers. Returns the signature's tags.
 */
export function verifyDkim(raw: string, publicKey: KeyObject): Record<string, string> {
	const split = raw.indexOf('\r\n\r\n');
	const fields = raw
		.slice(0, split + 2)
		.split(/\r\n(?![ \t])/)
		.filter(Boolean);
	const nameOf = (field: string) => field.slice(0, field.indexOf(':')).trim().toLowerCase();
	const relaxed = (field: string) =>
		`${nameOf(field)}:${field
			.slice(field.indexOf(':') + 1)
			.replace(/\r\n/g, '')
			.replace(/[ \t]+/g, ' ')
			.trim()}`;
	const signature = fields.find((field) => nameOf(field) === 'dkim-signature')!;
	const tags = Object.fromEntries(
		relaxed(signature)
			.slice('dkim-signature:'.length)
			.split(';')
			.filter((tag) => tag.trim())
			.map((tag) => {
				const [name, ...value] = tag.split('=');
				return [name.trim(), value.join('=').replace(/\s/g, '')];
			}),
	);
	const body = raw
		.slice(split + 4)
		.split('\r\n')
		.map((line) => line.replace(/[ \t]+/g, ' ').replace(/ $/, ''))
		.join('\r\n')
		.replace(/(\r\n)*$/, '');
	expect(tags.bh).toBe(
		createHash('sha256')
			.update(body ? `${body}\r\n` : '')
			.digest('base64'),
	);
	const unused = [...fields];
	const signed = tags.h.split(':').map((name) => {
		const index = unused.map(nameOf).lastIndexOf(name.toLowerCase());
		return index < 0 ? '' : `${relaxed(unused.splice(index, 1)[0])}\r\n`;
	});
	const data = signed.join('') + relaxed(signature).replace(/([; ]b=)[^;]*/, '$1');
	expect(verify('sha256', Buffer.from(data), publicKey, Buffer.from(tags.b, 'base64'))).toBe(true);
	return tags;
}
