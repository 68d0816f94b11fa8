import type { Readable } from 'node:stream';

/**
 * Reads a DATA stream into one buffer backed by a SharedArrayBuffer, so parser workers read
 * it without a copy. When the client declared the size (MAIL FROM ... SIZE=n) the buffer is
 * allocated up front and filled as data arrives, so a large message is held once, not twice.
 * Once the stream passes `maxBytes` the rest is drained and dropped.
 */
export function readRaw(stream: Readable & { sizeExceeded?: boolean }, maxBytes: number, declaredSize?: number): Promise<Buffer | null> {
	return new Promise((resolve, reject) => {
		let filling = declaredSize && declaredSize <= maxBytes ? Buffer.from(new SharedArrayBuffer(declaredSize)) : null;
		const chunks: Buffer[] = [];
		let length = 0;
		stream.on('data', (chunk: Buffer) => {
			if (length + chunk.length <= maxBytes) {
				if (filling && length + chunk.length <= filling.length) chunk.copy(filling, length);
				else {
					// More than declared: keep what we have and collect the rest.
					if (filling) chunks.push(filling.subarray(0, length));
					filling = null;
					chunks.push(chunk);
				}
			}
			length += chunk.length;
		});
		stream.on('error', reject);
		stream.on('end', () => {
			if (stream.sizeExceeded || length > maxBytes) return resolve(null);
			if (filling) return resolve(filling.subarray(0, length));
			const raw = Buffer.from(new SharedArrayBuffer(length));
			let offset = 0;
			for (const chunk of chunks) offset += chunk.copy(raw, offset);
			resolve(raw);
		});
	});
}
