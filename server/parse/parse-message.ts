import { Readable } from 'node:stream';
import type { AddressObject as MpAddressObject, EmailAddress, Attachment } from 'mailparser';
import { compile } from 'html-to-text';
import type { ParsedAttachment, ParsedMail } from '../mail/parsed-mail';
import type { AddressObject } from '../schemas/message';
import { extractLinks } from './links';
import { builtInSpamScorer, type SpamScorer } from './spam';
import { assembleBody, bodyChunks, bodySample, type MessageBody } from '../bytes/message-body';
import { besideSpooled, isSpooled, type RawMessage, type SpooledBytes } from '../bytes/spooled-bytes';
import { withoutNul } from './header-decoder';
import { strippedReply } from './reply-text';
import { findCodes } from './codes';
import { inMemory, parseMimeStream, topLevelFields } from './mime-stream';

// Our own text rendering and link extraction replace mailparser's, so skip its conversions. parseMimeStream gives what
// simpleParser gives with these.
export const PARSER_OPTIONS = { skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true, skipImageLinks: true };

/** Compiled once: `convert` compiles its options on every call, which is for every piece of a large body. */
const htmlToText = compile({
	wordwrap: false,
	selectors: [
		// "anchor https://…": the text endpoint then numbers the URL where it stands.
		{ selector: 'a', options: { linkBrackets: false, hideLinkHrefIfSameAsText: true } },
		{ selector: 'img', format: 'skip' },
		// Cells apart, a row to a line ("Your code   482913   Expires in 10 minutes"): by default they run together
		// ("Your code482913Expires"), which search, the text endpoint and the code reader then see as one word.
		{ selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false, maxColumnWidth: 1000 } },
	],
});

/** The text of an HTML body; a large one (in a file) is converted a piece at a time into a file beside it. */
function htmlBodyToText(html: MessageBody): MessageBody {
	return isSpooled(html) ? assembleBody(htmlTextPieces(html), `${html.spoolPath}.txt`) : htmlToText(html);
}

/** html-to-text builds a document tree of what it converts: many times the size of its HTML. */
const HTML_TO_TEXT_PIECE_BYTES = 64 * 1024;

/**
 * A large HTML body as text, converted in pieces of about HTML_TO_TEXT_PIECE_BYTES that each end after
 * a tag ('>'), so converting holds one piece, not the whole document; a line may break where a piece ends.
 */
function* htmlTextPieces(html: SpooledBytes): Generator<string> {
	let carried = '';
	let separator = '';
	const convert = function* (piece: string) {
		const text = htmlToText(piece);
		if (!text) return;
		yield separator + text;
		separator = '\n';
	};
	for (const chunk of bodyChunks(html, HTML_TO_TEXT_PIECE_BYTES)) {
		const text = carried + chunk;
		const cut = text.lastIndexOf('>') + 1 || text.length;
		yield* convert(text.slice(0, cut));
		carried = text.slice(cut);
	}
	yield* convert(carried);
}

export { withoutNul };

/** The addresses of a mailparser address field, groups flattened, lower-cased. */
export function flattenAddresses(field: MpAddressObject | MpAddressObject[] | undefined): AddressObject[] {
	const out: AddressObject[] = [];
	const visit = (entry: EmailAddress) => {
		if (entry.group) entry.group.forEach(visit);
		else out.push({ address: withoutNul((entry.address ?? '').toLowerCase()), name: withoutNul(entry.name ?? '') });
	};
	for (const object of Array.isArray(field) ? field : field ? [field] : []) object.value.forEach(visit);
	return out;
}

function optionalAddresses(field: MpAddressObject | MpAddressObject[] | undefined): AddressObject[] | null {
	const list = flattenAddresses(field);
	return list.length ? list : null;
}

/** "Subject: a\r\n b" -> ["subject", "a b"] */
function headerPair(key: string, line: string): [string, string] {
	const colon = line.indexOf(':');
	return [
		withoutNul(key.toLowerCase()),
		withoutNul(
			line
				.slice(colon + 1)
				.replace(/\r?\n[ \t]+/g, ' ')
				.trim(),
		),
	];
}

function toAttachment(attachment: Attachment): ParsedAttachment {
	const encoding = attachment.headers.get('content-transfer-encoding');
	const optional = (text: string | undefined) => (text === undefined ? null : withoutNul(text));
	return {
		checksum: attachment.checksum,
		contentType: withoutNul(attachment.contentType),
		fileName: optional(attachment.filename),
		length: attachment.size,
		contentId: optional(attachment.contentId),
		contentDisposition: optional(attachment.contentDisposition),
		transferEncoding: typeof encoding === 'string' ? withoutNul(encoding.toLowerCase()) : null,
		content: attachment.content,
	};
}

function validDate(date: Date | undefined): string | null {
	return date && !Number.isNaN(date.getTime()) ? date.toISOString() : null;
}

/** The parts of a mailparser result a record is built from (simpleParser's shape). */
export interface MailparserFields {
	subject?: string;
	from?: MpAddressObject | MpAddressObject[];
	to?: MpAddressObject | MpAddressObject[];
	cc?: MpAddressObject | MpAddressObject[];
	bcc?: MpAddressObject | MpAddressObject[];
	replyTo?: MpAddressObject | MpAddressObject[];
	messageId?: string;
	date?: Date;
	/** Header values as mailparser decodes them; `priority` folds X-Priority, Importance and the like. */
	headers: Map<string, unknown>;
	headerLines: readonly { key: string; line: string }[];
	text?: MessageBody;
	html?: MessageBody | false;
	attachments: Attachment[];
}

const PRIORITIES = new Set(['normal', 'high', 'low']);

/** How much of the new text a record keeps: records are listed by the hundred; the text endpoint has all of it. */
export const STRIPPED_TEXT_CHARS = 16 * 1024;

/** What the person wrote, and the codes of the message; each reader bounds how much of the text it reads (64 KB). */
function whatWasWritten(subject: string, text: string) {
	const { strippedText, strippedSignature } = strippedReply(text);
	return {
		strippedText: withoutNul(strippedText.length > STRIPPED_TEXT_CHARS ? strippedText.slice(0, STRIPPED_TEXT_CHARS) : strippedText),
		strippedSignature: strippedSignature === null ? null : withoutNul(strippedSignature),
		codes: findCodes(subject, text).map(withoutNul),
	};
}

/** What Mailroom stores of a message, from what mailparser made of it. */
export function toParsedMail(mail: MailparserFields, spamScorer: SpamScorer = builtInSpamScorer): ParsedMail {
	const html = mail.html === undefined || mail.html === false ? null : mail.html;
	const text = mail.text || (html ? htmlBodyToText(html) : '');
	const priority = mail.headers.get('priority');
	const subject = withoutNul(mail.subject ?? '');
	const sample = bodySample(text);
	const parsed: Omit<ParsedMail, 'spam'> = {
		subject,
		from: flattenAddresses(mail.from),
		to: flattenAddresses(mail.to),
		cc: optionalAddresses(mail.cc),
		bcc: optionalAddresses(mail.bcc),
		replyTo: optionalAddresses(mail.replyTo),
		messageId: withoutNul(mail.messageId ?? ''),
		date: validDate(mail.date),
		priority: typeof priority === 'string' && PRIORITIES.has(priority) ? (priority as ParsedMail['priority']) : 'normal',
		headers: mail.headerLines.map(({ key, line }) => headerPair(key, line)),
		text,
		html,
		links: extractLinks(text, html),
		attachments: mail.attachments.map(toAttachment),
		...whatWasWritten(subject, sample),
	};
	const spam = spamScorer.score({
		...parsed,
		text: sample,
		html: html === null ? null : bodySample(html),
		attachmentTypes: parsed.attachments.map((a) => a.contentType),
	});
	return { ...parsed, spam };
}

export async function parseMessage(raw: Uint8Array, spamScorer: SpamScorer = builtInSpamScorer): Promise<ParsedMail> {
	const parsed = await parseMimeStream(Readable.from([Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)]), inMemory);
	const mail: MailparserFields = {
		...topLevelFields(parsed.headers),
		headers: parsed.headers,
		headerLines: parsed.headerLines,
		text: parsed.text?.join(''),
		// As simpleParser: no HTML (or an empty one) is `false`.
		html: parsed.html ? parsed.html.join('') : false,
		attachments: parsed.attachments,
	};
	return toParsedMail(mail, spamScorer);
}

/** The raw source as text, each byte one character (latin1); a spooled one's is written to a file beside it, a window at a time. */
function rawAsText(raw: RawMessage): MessageBody {
	if (!isSpooled(raw)) return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('latin1');
	return assembleBody(bodyChunks(raw, undefined, 'latin1'), besideSpooled(raw, 'unparsed-text'));
}

/**
 * The record of a message the parser could not read: kept whole (raw is stored) with
 * what can be known without parsing, its raw source as its text, so nothing accepted is ever dropped.
 */
export function unparsedMessage(raw: RawMessage): ParsedMail {
	return {
		subject: '',
		from: [],
		to: [],
		cc: null,
		bcc: null,
		replyTo: null,
		messageId: '',
		date: null,
		priority: 'normal',
		headers: [],
		text: rawAsText(raw),
		html: null,
		links: [],
		spam: 0.5,
		attachments: [],
		strippedText: '',
		strippedSignature: null,
		codes: [],
	};
}
