import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type MailComposer from 'nodemailer/lib/mail-composer';
import type { MessageSpool, SpooledBytes } from '../bytes/spooled-bytes';
import { countLargeMessageBytes } from '../bytes/garbage';

/**
 * Composes a message straight into a new spool file, a piece at a time: built in memory, a 24 MB text cost the composer's
 * pieces and their join (some 75 MB) on top of the copies the store and the local copy made of it. The file is removed
 * should the composing fail.
 */
export async function composeIntoSpool(composer: MailComposer, spool: MessageSpool): Promise<SpooledBytes> {
	const spoolPath = spool.create();
	const file = createWriteStream(spoolPath);
	try {
		// Its pieces counted as they are written: the garbage of encoding them is collected every few MB (see garbage.ts).
		const counted = async function* (pieces: AsyncIterable<Buffer>) {
			for await (const piece of pieces) {
				countLargeMessageBytes(piece.length);
				yield piece;
			}
		};
		await pipeline(composer.compile().createReadStream(), counted, file);
	} catch (err) {
		spool.remove({ spoolPath, byteLength: file.bytesWritten });
		throw err;
	}
	return { spoolPath, byteLength: file.bytesWritten };
}
