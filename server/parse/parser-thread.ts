// Worker-thread entry: parsing is CPU-bound, so it runs here, off the SMTP event loop.
import { Piscina } from 'piscina';
import { parseMessage } from './parse-message';
import { markStarted } from './parse-progress';
import type { ParsedMail } from '../mail/parsed-mail';
import { parseSpooled } from './parse-spooled';
import { isSpooled, type RawMessage } from '../bytes/spooled-bytes';

/** The outcome for one message of a batch: its parse, or why it failed (the others still count). */
export type BatchResult = ParsedMail | { parseError: string };

/** A buffer that owns its whole ArrayBuffer can be moved to the main thread instead of copied. */
const ownsItsMemory = (content: ParsedMail['attachments'][number]['content']): content is Uint8Array =>
	!isSpooled(content) && content.byteOffset === 0 && content.byteLength === content.buffer.byteLength;

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

/** What the pool hands a thread: messages that arrived together (one round trip for all of them). */
export interface ParseTask {
	/** Large messages come as spool files (parsed as they stream; attachments go to files beside them). */
	raws: RawMessage[];
	/** Where this thread says which message it is on, for the pool's per-message timeout. */
	progress: BigInt64Array;
}

export default async function parse({ raws, progress }: ParseTask): Promise<BatchResult[]> {
	const results: BatchResult[] = [];
	for (const [index, raw] of raws.entries()) {
		markStarted(progress, index);
		results.push(await (isSpooled(raw) ? parseSpooled(raw) : parseMessage(raw)).catch((err: Error) => ({ parseError: err.message })));
	}
	return moveAttachments(
		results,
		results.filter((result): result is ParsedMail => !('parseError' in result)),
	);
}
