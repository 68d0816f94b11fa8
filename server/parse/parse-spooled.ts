import { createReadStream, createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MailParser, type AttachmentStream, type MessageText } from 'mailparser';
import { PARSER_OPTIONS, toParsedMail, type MailparserFields } from './parse-message';
import type { ParsedMail } from '../mail/parsed-mail';
import { assembleBody } from '../bytes/message-body';
import { streamSpooledParts } from './spooled-parts';
import { besideSpooled, type SpooledBytes } from '../bytes/spooled-bytes';
import { countLargeMessageBytes } from '../bytes/garbage';

/** simpleParser copies these headers onto its result; so do we, so both paths give the same record. */
const TOP_LEVEL_HEADERS = ['subject', 'references', 'date', 'to', 'from', 'cc', 'bcc', 'message-id', 'in-reply-to', 'reply-to'];

/**
 * Parses a spooled message as it streams from its file, the way simpleParser parses one in memory,
 * except that each attachment, and each text and HTML part, streams into a file beside the message
 * instead of a buffer: a large message is never whole in memory, and mailparser reads the file no
 * faster than those files are written (backpressure all along). A large text or HTML body stays
 * in a file (see MessageBody).
 */
export async function parseSpooled(message: SpooledBytes): Promise<ParsedMail> {
	const parser = new MailParser(PARSER_OPTIONS);
	const textParts = streamSpooledParts(parser, (index) => besideSpooled(message, `text-part-${index}`));
	const mail: Omit<MailparserFields, 'headers' | 'headerLines'> & Partial<MailparserFields> = { attachments: [] };
	const files: SpooledBytes[] = [];
	/** mailparser's text and HTML, with markers where the text parts' files go. */
	let text: string | undefined;
	let html: string | false | undefined;
	parser.on('headers', (headers) => {
		mail.headers = headers;
		mail.headerLines = (parser as unknown as { headerLines: MailparserFields['headerLines'] }).headerLines;
	});

	const read = async () => {
		for await (const data of parser as AsyncIterable<AttachmentStream | MessageText>) {
			if (data.type === 'text') {
				if (data.text !== undefined) text = data.text;
				if (data.html !== undefined) html = data.html as string | false;
				continue;
			}
			const spoolPath = besideSpooled(message, `attachment-${files.length}`);
			await pipeline(data.content as Readable, createWriteStream(spoolPath));
			files.push({ spoolPath, byteLength: data.size });
			// Content lives in the file: the record is built from the metadata mailparser counted on the way.
			mail.attachments.push({ ...data, content: Buffer.alloc(0) } as unknown as MailparserFields['attachments'][number]);
			data.release();
		}
	};
	const source = createReadStream(message.spoolPath, { highWaterMark: 256 * 1024 });
	source.on('data', (chunk) => countLargeMessageBytes(chunk.length));
	await Promise.all([pipeline(source, parser), read()]);
	await textParts.written();

	// As simpleParser: no HTML (or an empty one) is `false`.
	mail.html = html ? assembleBody(textParts.segments(html), besideSpooled(message, 'html')) : false;
	if (text) mail.text = assembleBody(textParts.segments(text), besideSpooled(message, 'text'));
	const headers = mail.headers ?? new Map<string, unknown>();
	const fields = mail as unknown as Record<string, unknown>;
	for (const key of TOP_LEVEL_HEADERS) {
		if (headers.has(key)) fields[key.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())] = headers.get(key);
	}
	const parsed = toParsedMail({ ...mail, headers, headerLines: mail.headerLines ?? [] });
	return { ...parsed, attachments: parsed.attachments.map((attachment, i) => ({ ...attachment, content: files[i] })) };
}
