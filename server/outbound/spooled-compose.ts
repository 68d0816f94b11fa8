import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type MailComposer from 'nodemailer/lib/mail-composer';
import type { MessageSpool, SpooledBytes } from '../bytes/spooled-bytes';

/**
 * Composes a message straight into a new spool file, a piece at a time: built in memory, a 24 MB text cost the composer's
 * pieces and their join (some 75 MB) on top of the copies the store and the local copy made of it. The file is removed
 * should the composing fail.
 */
export async function composeIntoSpool(composer: MailComposer, spool: MessageSpool): Promise<SpooledBytes> {
	const spoolPath = spool.create();
	const file = createWriteStream(spoolPath);
	try {
		await pipeline(composer.compile().createReadStream(), file);
	} catch (err) {
		spool.remove({ spoolPath, byteLength: file.bytesWritten });
		throw err;
	}
	return { spoolPath, byteLength: file.bytesWritten };
}
