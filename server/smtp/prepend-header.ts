import { createReadStream, createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { besideSpooled, isSpooled, type RawMessage } from '../bytes/spooled-bytes';

/**
 * The message with a header line put in front, as an MTA adds its trace and Authentication-Results lines. One in memory
 * is copied into a new SharedArrayBuffer (parser threads read it without a copy); a spooled one is written anew beside
 * its file, in the same spool folder, so removing the message removes both.
 */
export async function prependHeader(raw: RawMessage, header: string): Promise<RawMessage> {
	const head = Buffer.from(header, 'latin1');
	if (!isSpooled(raw)) {
		const out = Buffer.from(new SharedArrayBuffer(head.length + raw.byteLength));
		head.copy(out, 0);
		out.set(raw, head.length);
		return out;
	}
	const spoolPath = besideSpooled(raw, 'with-header.eml');
	const file = createWriteStream(spoolPath);
	file.write(head);
	await pipeline(createReadStream(raw.spoolPath), file);
	return { spoolPath, byteLength: head.length + raw.byteLength };
}
