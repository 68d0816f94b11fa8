import { createWriteStream, type WriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { Spool } from './spool';
import type { RawMessage } from '../bytes/spooled-bytes';
import { countLargeMessageBytes } from '../bytes/garbage';

/**
 * Reads a DATA stream. A small message goes into one buffer backed by a SharedArrayBuffer, so
 * parser workers read it without a copy; when the client declared the size (MAIL FROM ... SIZE=n)
 * the buffer is allocated up front and filled as data arrives, so it is held once, not twice.
 * A message that reaches the spool's threshold (declared, or once that much has arrived) is
 * written to a spool file instead, as it arrives, so it is never whole in memory. Once the stream
 * passes `maxBytes` the rest is drained and dropped (and a spool file removed): resolves null.
 */
export function readRaw(
	stream: Readable & { sizeExceeded?: boolean },
	maxBytes: number,
	declaredSize?: number,
	spool?: Spool,
): Promise<RawMessage | null> {
	return new Promise((resolve, reject) => {
		const spoolFromStart = spool !== undefined && declaredSize !== undefined && declaredSize >= spool.threshold && declaredSize <= maxBytes;
		let filling = declaredSize && declaredSize <= maxBytes && !spoolFromStart ? Buffer.from(new SharedArrayBuffer(declaredSize)) : null;
		let chunks: Buffer[] = [];
		let length = 0;
		let spoolPath: string | undefined;
		let file: WriteStream | undefined;
		let fileError: Error | undefined;

		/** Moves what has arrived so far to a new spool file; on failure the message is refused at its end (451). */
		const startSpooling = () => {
			try {
				spoolPath = spool!.create();
			} catch (err) {
				fileError = err as Error;
				return;
			}
			file = createWriteStream(spoolPath);
			file.on('error', (err) => {
				fileError ??= err;
				// Nothing more is written; let the client finish so it gets its 451.
				stream.resume();
			});
			if (filling) chunks = [filling.subarray(0, length)];
			filling = null;
			for (const chunk of chunks) file.write(chunk);
			chunks = [];
		};
		if (spoolFromStart) startSpooling();

		/** Keeps a chunk that arrived after `length` bytes. */
		const keep = (chunk: Buffer) => {
			if (!file && spool && length + chunk.length >= spool.threshold) startSpooling();
			if (fileError) return;
			if (file) {
				countLargeMessageBytes(chunk.length);
				// Backpressure: a slow disk slows the client down instead of filling memory.
				if (!file.write(chunk)) {
					stream.pause();
					file.once('drain', () => stream.resume());
				}
			} else if (filling && length + chunk.length <= filling.length) chunk.copy(filling, length);
			else {
				// More than declared: keep what we have and collect the rest.
				if (filling) chunks.push(filling.subarray(0, length));
				filling = null;
				chunks.push(chunk);
			}
		};
		stream.on('data', (chunk: Buffer) => {
			// Past the limit (552) or once the spool file failed (451) the rest is drained and dropped; the end tells which.
			if (length + chunk.length <= maxBytes && !fileError) keep(chunk);
			length += chunk.length;
		});
		/** Ends the spool file; resolves once it is closed, with the error writing it met, if any. */
		const closeFile = () =>
			new Promise<Error | undefined>((done) => {
				if (file!.closed) return done(fileError);
				file!.once('close', () => done(fileError));
				file!.end();
			});
		const discard = async () => {
			if (file) await closeFile();
			if (spoolPath) spool!.remove({ spoolPath, byteLength: length });
		};
		stream.on('error', (err) => void discard().then(() => reject(err)));
		stream.on('end', () => {
			if (stream.sizeExceeded || length > maxBytes) return void discard().then(() => resolve(null));
			if (file || fileError) {
				void (file ? closeFile() : Promise.resolve(fileError)).then((err) => {
					if (!err) return resolve({ spoolPath: spoolPath!, byteLength: length });
					void discard().then(() => reject(err));
				});
				return;
			}
			if (filling) return resolve(filling.subarray(0, length));
			const raw = Buffer.from(new SharedArrayBuffer(length));
			let offset = 0;
			for (const chunk of chunks) offset += chunk.copy(raw, offset);
			resolve(raw);
		});
	});
}
