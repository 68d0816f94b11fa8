// Worker-thread entry: parsing is CPU-bound, so it runs here, off the SMTP event loop.
import { Piscina } from 'piscina';
import { parseMessage } from './parse-message';
import type { ParsedMail } from './parsed-mail';

/** The outcome for one message of a batch: its parse, or why it failed (the others still count). */
export type BatchResult = ParsedMail | { parseError: string };

/** A buffer that owns its whole ArrayBuffer can be moved to the main thread instead of copied. */
const ownsItsMemory = (content: Uint8Array) => content.byteOffset === 0 && content.byteLength === content.buffer.byteLength;

/** Large attachments travel back without a copy (pooled small buffers are cloned). */
function moveAttachments<T>(value: T, parsed: ParsedMail[]): T {
	const movable = parsed.flatMap((mail) => mail.attachments.map((attachment) => attachment.content)).filter(ownsItsMemory);
	if (movable.length === 0) return value;
	return Piscina.move({
		get [Piscina.transferableSymbol]() {
			return movable.map((content) => content.buffer);
		},
		get [Piscina.valueSymbol]() {
			return value;
		},
	} as unknown as ArrayBuffer) as unknown as T;
}

/** One message, or a batch of messages that arrived together (one round trip for all of them). */
export default async function parse(input: Uint8Array | Uint8Array[]): Promise<ParsedMail | BatchResult[]> {
	if (!Array.isArray(input)) {
		const parsed = await parseMessage(input);
		return moveAttachments(parsed, [parsed]);
	}
	const results: BatchResult[] = [];
	for (const raw of input) results.push(await parseMessage(raw).catch((err: Error) => ({ parseError: err.message })));
	return moveAttachments(
		results,
		results.filter((result): result is ParsedMail => !('parseError' in result)),
	);
}
