// Worker-thread entry: parsing is CPU-bound, so it runs here, off the SMTP event loop.
import { Piscina } from 'piscina';
import { parseMessage } from './parse-message';

/** A buffer that owns its whole ArrayBuffer can be moved to the main thread instead of copied. */
const ownsItsMemory = (content: Uint8Array) => content.byteOffset === 0 && content.byteLength === content.buffer.byteLength;

export default async function parse(raw: Uint8Array) {
	const parsed = await parseMessage(raw);
	const movable = parsed.attachments.map((attachment) => attachment.content).filter(ownsItsMemory);
	if (movable.length === 0) return parsed;
	// Large attachments travel back without a copy (pooled small buffers are cloned).
	return Piscina.move({
		get [Piscina.transferableSymbol]() {
			return movable.map((content) => content.buffer);
		},
		get [Piscina.valueSymbol]() {
			return parsed;
		},
	} as unknown as ArrayBuffer);
}
