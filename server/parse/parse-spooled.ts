import { createReadStream, createWriteStream } from 'node:fs';
import { toParsedMail, type MailparserFields } from './parse-message';
import type { ParsedMail } from '../mail/parsed-mail';
import { assembleBody, type BodySegment } from '../bytes/message-body';
import { parseMimeStream, topLevelFields, type BodyPieces, type PartOutputs } from './mime-stream';
import { besideSpooled, type SpooledBytes } from '../bytes/spooled-bytes';
import { countLargeMessageBytes } from '../bytes/garbage';

/**
 * Parses a spooled message as it streams from its file, the way simpleParser parses one in memory,
 * except that each attachment, and each text and HTML part, streams into a file beside the message
 * instead of a buffer (see parseMimeStream): a large message is never whole in memory, and the file is
 * read no faster than those files are written. A large text or HTML body stays in a file (see MessageBody).
 */
export async function parseSpooled(message: SpooledBytes): Promise<ParsedMail> {
	const toFile = (name: string) => {
		const spoolPath = besideSpooled(message, name);
		return { stream: createWriteStream(spoolPath), result: () => spoolPath };
	};
	const outputs: PartOutputs<{ file: string }, string> = {
		text: (index) => {
			const { stream, result } = toFile(`text-part-${index}`);
			return { stream, result: () => ({ file: result() }) };
		},
		attachment: (index) => toFile(`attachment-${index}`),
	};
	const source = createReadStream(message.spoolPath, { highWaterMark: 256 * 1024 });
	source.on('data', (chunk) => countLargeMessageBytes(chunk.length));
	const parsed = await parseMimeStream(source, outputs);

	const body = (pieces: BodyPieces<{ file: string }>, name: string) => assembleBody(pieces as BodySegment[], besideSpooled(message, name));
	const mail: MailparserFields = {
		...topLevelFields(parsed.headers),
		headers: parsed.headers,
		headerLines: parsed.headerLines,
		// As simpleParser: no HTML (or an empty one) is `false`.
		html: parsed.html ? body(parsed.html, 'html') : false,
		text: parsed.text && body(parsed.text, 'text'),
		// Content lives in the files: the record is built from what was counted on the way.
		attachments: parsed.attachments.map((attachment) => ({ ...attachment, content: Buffer.alloc(0) })),
	};
	const record = toParsedMail(mail);
	return {
		...record,
		attachments: record.attachments.map((attachment, i) => ({
			...attachment,
			content: { spoolPath: parsed.attachments[i].content, byteLength: parsed.attachments[i].size },
		})),
	};
}
