import MimeNode from '@zone-eu/mailsplit/lib/mime-node';
import { decode as decodeBase64 } from 'libbase64';
import { decode as decodeQuotedPrintable } from 'libqp';
import type { ParsedMail } from '../mail/parsed-mail';
import { toParsedMail, type MailparserFields } from './parse-message';
import { headerDecoder } from './header-decoder';

/**
 * The common small message, a single text/plain part, is parsed right on the event loop: a
 * hand-off to a parser thread and back costs more than its whole parse. It is parsed with
 * mailparser's own pieces (mailsplit's header parsing, mailparser's header decoding), so its
 * record is the one the thread would have made; anything else goes to the threads.
 */

/** Larger messages go to a parser thread. */
export const INLINE_PARSE_MAX_BYTES = 16 * 1024;

/**
 * Link detection costs up to about the square of the length of each whitespace-free run it scans
 * (linkify backtracks; see links.ts). Text over this budget goes to a thread, where the parse
 * timeout covers it, so no message holds the event loop for more than about a millisecond.
 */
const MAX_INLINE_LINK_SCAN = 512 * 1024;
/** The fixed part of scanning one run: at most about 60 links are detected inline. */
const LINK_SCAN_BASE = 8 * 1024;

/**
 * Decoding headers costs mailparser up to about 2 µs per byte of crafted address headers (a 15 KB
 * "To:" took 28 ms) and a few µs per encoded word, so only small header blocks are decoded here.
 */
const MAX_INLINE_HEADER_BYTES = 8 * 1024;
const MAX_INLINE_ADDRESS_HEADER_BYTES = 512;
/** The headers mailparser runs its address parser on (and every List-* header). */
const ADDRESS_HEADERS = new Set([
	'from',
	'to',
	'cc',
	'bcc',
	'sender',
	'reply-to',
	'delivered-to',
	'return-path',
	'disposition-notification-to',
]);

const CRLF_CRLF = Buffer.from('\r\n\r\n');
/** Text in these needs no charset conversion. */
const PLAIN_CHARSETS = new Set(['ascii', 'usascii', 'utf8']);
const CLEAN_BASE64 = /^(?:[A-Za-z0-9+/]{4}|\r\n)*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?(?:\r\n)*$/;

function decodeBody(encoding: string | false, body: Buffer): Buffer | undefined {
	if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
	if (encoding !== 'base64') return body;
	const text = body.toString('latin1');
	return CLEAN_BASE64.test(text) ? decodeBase64(text) : undefined;
}

/** The parse of a small single-part text message, or undefined when it needs a parser thread. */
export function parseSimpleMessage(raw: Uint8Array): ParsedMail | undefined {
	if (raw.byteLength > INLINE_PARSE_MAX_BYTES) return undefined;
	const message = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
	const headerEnd = message.indexOf(CRLF_CRLF);
	// Only plain CRLF header blocks: other line endings and odd starts are the splitter's to judge.
	if (headerEnd <= 0 || headerEnd > MAX_INLINE_HEADER_BYTES || !crlfLinesOnly(message, headerEnd)) return undefined;
	const node = new MimeNode(false, {});
	node.addHeaderChunk(message.subarray(0, headerEnd + 2));
	node.parseHeaders();
	const charset = (node.charset || 'utf-8').toLowerCase().replace(/[^a-z0-9]+/g, '');
	if (node.contentType !== 'text/plain' || node.flowed || !PLAIN_CHARSETS.has(charset)) return undefined;
	if (node.disposition && node.disposition !== 'inline') return undefined;
	const body = decodeBody(node.encoding, message.subarray(headerEnd + 4));
	if (!body) return undefined;
	if (linkScanCost(body) > MAX_INLINE_LINK_SCAN) return undefined;
	const text = body.toString().replace(/\r?\n/g, '\n');
	const headerLines = node.headers ? node.headers.getList() : [];
	if (addressHeaderBytes(headerLines) > MAX_INLINE_ADDRESS_HEADER_BYTES) return undefined;
	const headers = headerDecoder.processHeaders(headerLines);
	const header = <T>(key: string) => headers.get(key) as T | undefined;
	const mail: MailparserFields = {
		subject: header('subject'),
		from: header('from'),
		to: header('to'),
		cc: header('cc'),
		bcc: header('bcc'),
		replyTo: header('reply-to'),
		messageId: header('message-id'),
		date: header('date'),
		headers,
		headerLines,
		text,
		attachments: [],
	};
	return toParsedMail(mail);
}

/** Whether every CR and LF before `end` is part of a CRLF pair. */
function crlfLinesOnly(message: Buffer, end: number): boolean {
	let pairs = 0;
	for (let at = message.indexOf(10); at !== -1 && at < end; at = message.indexOf(10, at + 1)) {
		if (message[at - 1] !== 13) return false;
		pairs++;
	}
	let returns = 0;
	for (let at = message.indexOf(13); at !== -1 && at < end; at = message.indexOf(13, at + 1)) returns++;
	return returns === pairs;
}

function addressHeaderBytes(lines: { key: string; line: string }[]): number {
	let bytes = 0;
	for (const { key, line } of lines) if (ADDRESS_HEADERS.has(key) || key.startsWith('list-')) bytes += line.length;
	return bytes;
}

/**
 * What link detection will spend on `body`: for each run without ASCII whitespace that holds
 * "://" (the only runs it scans), a fixed part for the link found plus the square of its length.
 */
function linkScanCost(body: Buffer): number {
	if (body.indexOf('://') === -1) return 0;
	let cost = 0;
	let run = 0;
	let scheme = false;
	for (let i = 0; i < body.length; i++) {
		const byte = body[i];
		if (byte === 32 || (byte >= 9 && byte <= 13)) {
			if (scheme) cost += LINK_SCAN_BASE + run * run;
			run = 0;
			scheme = false;
		} else {
			run++;
			// "://" ends here: the run holds a scheme.
			if (byte === 0x2f && run >= 3 && body[i - 1] === 0x2f && body[i - 2] === 0x3a) scheme = true;
		}
	}
	return scheme ? cost + LINK_SCAN_BASE + run * run : cost;
}
