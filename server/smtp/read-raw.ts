import type { Readable } from 'node:stream';

/**
 * Reads a DATA stream into one buffer backed by a SharedArrayBuffer, so parser workers read
 * it without a copy. Once the stream passes `maxBytes` the rest is drained and dropped.
 */
export function readRaw(stream: Readable & { sizeExceeded?: boolean }, maxBytes: number): Promise<Buffer | null> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let length = 0;
		stream.on('data', (chunk: Buffer) => {
			length += chunk.length;
			if (length <= maxBytes) chunks.push(chunk);
		});
		stream.on('error', reject);
		stream.on('end', () => {
			if (stream.sizeExceeded || length > maxBytes) return resolve(null);
			const raw = Buffer.from(new SharedArrayBuffer(length));
			let offset = 0;
			for (const chunk of chunks) offset += chunk.copy(raw, offset);
			resolve(raw);
		});
	});
}
