import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { BareLineEndingScan, bareLineEnding, bareLineEndingInFile } from 'mailroom-server/dist/smtp/bare-line-endings';
import { cut, cuts } from '../../helpers/cuts';

/** The definition, byte by byte: a LF not after a CR, or a CR not before a LF; a bare LF anywhere wins. */
function reference(bytes: Uint8Array): 'LF' | 'CR' | null {
	let cr = false;
	for (let i = 0; i < bytes.length; i++) {
		if (bytes[i] === 0x0a && (i === 0 || bytes[i - 1] !== 0x0d)) return 'LF';
		if (bytes[i] === 0x0d && bytes[i + 1] !== 0x0a) cr = true;
	}
	return cr ? 'CR' : null;
}

// Mostly line-ending bytes, so every combination comes up often.
const messageBytes = fc.array(fc.constantFrom(0x0d, 0x0a, 0x2e, 0x41), { maxLength: 40 }).map((bytes) => Uint8Array.from(bytes));

describe('bare line endings', () => {
	it('are found the same in one piece and in any split into pieces', () => {
		fc.assert(
			fc.property(messageBytes, cuts(6), (bytes, at) => {
				const scan = new BareLineEndingScan();
				for (const piece of cut(bytes, at)) scan.push(piece);
				expect(bareLineEnding(bytes)).toBe(reference(bytes));
				expect(scan.result()).toBe(reference(bytes));
			}),
			{ numRuns: 2000 },
		);
	});

	it('are found in a file larger than one read', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'bare-lf-'));
		try {
			const line = Buffer.from(`${'a'.repeat(1022)}\r\n`);
			const clean = Buffer.concat(Array.from({ length: 1500 }, () => line));
			writeFileSync(join(dir, 'clean.eml'), clean);
			expect(await bareLineEndingInFile(join(dir, 'clean.eml'))).toBeNull();
			// A CR at the very end of the first 1 MB read, followed by something other than LF.
			const crAtBoundary = Buffer.from(clean);
			crAtBoundary[1024 * 1024 - 1] = 0x0d;
			writeFileSync(join(dir, 'cr.eml'), crAtBoundary);
			expect(await bareLineEndingInFile(join(dir, 'cr.eml'))).toBe('CR');
			writeFileSync(join(dir, 'lf.eml'), Buffer.concat([clean, Buffer.from('tail\n')]));
			expect(await bareLineEndingInFile(join(dir, 'lf.eml'))).toBe('LF');
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
