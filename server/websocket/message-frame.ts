import type { MessageContent } from '../mail/message-content';
import type { MessageRecord } from '../schemas/message';
import { bodyProps } from '../payload/body-props';
import { jsonPieces } from '../bytes/streamed-json';

/** A frame goes out in fragments of about this size: a large message's is made as bytes, never as one string. */
const FRAGMENT_BYTES = 64 * 1024;

/**
 * A message's frame: `whole` when it fits in one fragment (made once, shared by every subscriber); otherwise `fragments`
 * makes it anew for each subscriber, as fast as that subscriber reads, so a large message is never in memory whole.
 */
export type MessageFrame = { whole: Buffer } | { fragments: () => AsyncGenerator<Buffer> };

/**
 * The record plus text, HTML, headers, raw and the attachments (objects with their download URLs, in place of the record's
 * list of checksums) as JSON, in fragments of at least FRAGMENT_BYTES (the last one may be shorter).
 */
async function* frameFragments(record: MessageRecord, content: MessageContent, publicUrl: string): AsyncGenerator<Buffer> {
	let gathered: Buffer[] = [];
	let size = 0;
	for await (const piece of jsonPieces({ status: 200, email: { ...record, ...(await bodyProps(record, content, publicUrl)) } })) {
		const bytes = Buffer.from(piece);
		gathered.push(bytes);
		size += bytes.length;
		if (size < FRAGMENT_BYTES) continue;
		yield Buffer.concat(gathered, size);
		gathered = [];
		size = 0;
	}
	if (size) yield Buffer.concat(gathered, size);
}

/** Throws DeletedWhileReadError if the message's pieces go while its first fragments are made. */
export async function messageFrame(record: MessageRecord, content: MessageContent, publicUrl: string): Promise<MessageFrame> {
	const fragments = () => frameFragments(record, content, publicUrl);
	const probe = fragments();
	const first = await probe.next();
	if ((await probe.next()).done) return { whole: first.value as Buffer };
	await probe.return(undefined);
	return { fragments };
}
