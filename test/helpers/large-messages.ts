import { createCipheriv, createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer';
import type Mail from 'nodemailer/lib/mailer';
import type { AttachmentMeta, MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { TestMailroom } from './mailroom';
import { sendRawTo } from './messages';
import { fetchRaw } from './raw-http';

/**
 * Bytes that look random (incompressible, every byte value) and are the same in every test file, so that a message built
 * with them can be kept on disk for the files after (see `builtOnce`): AES-CTR over zeros, keyed by `seed`.
 */
function fixedRandomBytes(length: number, seed: string): Buffer {
	const key = createHash('sha256').update(seed).digest();
	return createCipheriv('aes-256-ctr', key, Buffer.alloc(16)).update(Buffer.alloc(length));
}

/**
 * The large messages built with nodemailer, kept on disk for the rest of the run: building one in a test worker takes
 * seconds (its quoted-printable), and a dozen files use them. Kept under a hash of this file and nodemailer's version, so
 * a change to either builds them anew; written to a temporary name first, so a file never reads half of one.
 */
const BUILT_DIR = join(
	tmpdir(),
	'mailroom-test-messages',
	createHash('sha256')
		.update(readFileSync(__filename))
		.update(readFileSync(require.resolve('nodemailer/package.json')))
		.digest('hex')
		.slice(0, 16),
);

async function builtOnce(name: string, build: () => Promise<Buffer>): Promise<Buffer> {
	const file = join(BUILT_DIR, `${name}.eml`);
	try {
		return readFileSync(file);
	} catch {
		// Not built yet in this run (or any before it with the same fixtures).
	}
	const built = await build();
	mkdirSync(BUILT_DIR, { recursive: true });
	const temporary = `${file}.${process.pid}`;
	writeFileSync(temporary, built);
	renameSync(temporary, file);
	return built;
}

/**
 * A large message (a few MB: well past a lowered spool threshold, of 64 KB say) with attachments that are not text
 * (base64 on the wire), the same file twice among them.
 */
export const bigFile = fixedRandomBytes(3 * 1024 * 1024, 'big.bin');
export const image = fixedRandomBytes(200 * 1024, 'pic.png');
export const LARGE_MESSAGE: Mail.Options = {
	from: '"Big Sender" <big@sender.test>',
	to: 'big@spool.test',
	subject: 'A large one',
	text: 'See https://example.org/large and the attachments.',
	html: '<p>See <a href="https://example.org/large">this</a> <img src="cid:pic@test"></p>',
	attachments: [
		{ filename: 'big.bin', content: bigFile },
		{ filename: 'pic.png', content: image, contentType: 'image/png', cid: 'pic@test' },
		{ filename: 'twice.bin', content: bigFile },
	],
};

/**
 * A message whose text (and HTML, when given: then the two as multipart/alternative) goes on the wire as it is, 7bit, for
 * `sendMail` or a server's `send`. nodemailer sends every string of over 128 KB in quoted-printable, whatever its lines: a
 * 16 MB text takes it seconds of CPU to encode (and the server as long to decode), for bytes that 7bit sends unchanged.
 */
export function sevenBitMail(mail: { to: string; text: string; html?: string; from?: string; subject?: string }): Mail.Options {
	const { to, text, html, from = 'sender@sender.test', subject = 'hello' } = mail;
	const part = (type: string, body: string) => {
		if (/[^\t\r\n -~]/.test(body) || /[^\n]{999}/.test(body))
			throw new Error('7bit here is printable ASCII in lines of at most 998 characters');
		return `Content-Type: ${type}; charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\n${body.replace(/\r?\n/g, '\r\n')}`;
	};
	const boundary = 'seven-bit-alternative';
	const content =
		html === undefined
			? part('text/plain', text)
			: `Content-Type: multipart/alternative; boundary="${boundary}"\r\n\r\n--${boundary}\r\n${part('text/plain', text)}\r\n` +
				`--${boundary}\r\n${part('text/html', html)}\r\n--${boundary}--\r\n`;
	const raw = `From: ${from}\r\nTo: ${to}\r\nSubject: ${subject}\r\nMIME-Version: 1.0\r\n${content}`;
	return { envelope: { from, to: [to] }, raw: Buffer.from(raw) };
}

/** The attachments of LARGE_MESSAGE by file name. */
export const LARGE_ATTACHMENTS: Record<string, Buffer> = { 'big.bin': bigFile, 'pic.png': image, 'twice.bin': bigFile };

/** Builds a message as nodemailer would send it. */
export function composeMail(mail: Mail.Options): Promise<Buffer> {
	return new MailComposer(mail).compile().build();
}

let largeRawBuilt: Promise<Buffer> | undefined;

/** LARGE_MESSAGE's raw source: the same bytes every time (nodemailer picks new boundaries and ids for each message it builds). */
export function largeRaw(): Promise<Buffer> {
	return (largeRawBuilt ??= builtOnce('large', () => composeMail(LARGE_MESSAGE)));
}

/** Sends LARGE_MESSAGE's raw source to `to`. */
export async function sendLarge(server: TestMailroom, to: string): Promise<void> {
	await sendRawTo(server, to, await largeRaw(), 'big@sender.test');
}

/** Everything the API serves of one message, as bytes or JSON. */
export interface Served {
	record: MessageRecord;
	text: string;
	headers: unknown;
	dirty: string;
	raw: Buffer;
	attachments: AttachmentMeta[];
	attachmentBytes: Buffer[];
}

export async function served(server: TestMailroom, inbox: string, id: string): Promise<Served> {
	const get = async (path: string) => (await fetchRaw(server, path)).bytes;
	const attachments = (await server.api<AttachmentMeta[]>(`/api/addresses/${inbox}/messages/${id}/attachments`)).body;
	return {
		record: (await server.api<MessageRecord>(`/api/addresses/${inbox}/messages/${id}`)).body,
		text: (await server.api(`/api/text/${inbox}/${id}`)).text,
		headers: (await server.api(`/api/addresses/${inbox}/messages/${id}/headers`)).body,
		dirty: (await server.api(`/api/dirty/${inbox}/${id}`)).text,
		raw: await get(`/api/raw/${inbox}/${id}`),
		attachments,
		attachmentBytes: await Promise.all(attachments.map((a) => get(`/api/addresses/${inbox}/messages/${id}/attachments/${a.checksum}`))),
	};
}

/** The inboxes of largeBodies(), each named for the message it gets. */
export type LargeBodyInbox = 'text@bodies.test' | 'both@bodies.test' | 'nested@bodies.test' | 'latin@bodies.test';

/**
 * Messages with large text and HTML bodies (a bit over 2 MB of text each, with multi-byte characters on every line: a
 * spooling server stores them in three 1 MB pieces), by the inbox each is sent to: plain text, text and HTML (the text
 * base64), text with a message attached, and format=flowed latin1 text in quoted-printable.
 */
export async function largeBodies(): Promise<Record<LargeBodyInbox, Buffer>> {
	const bodies: Partial<Record<LargeBodyInbox, Buffer>> = {};
	for (const inbox of Object.keys(LARGE_BODIES) as LargeBodyInbox[]) bodies[inbox] = await largeBody(inbox);
	return bodies as Record<LargeBodyInbox, Buffer>;
}

/** One of largeBodies(), built only when asked for (nodemailer takes a second or more for each), then kept for the run. */
export function largeBody(inbox: LargeBodyInbox): Promise<Buffer> {
	return (largeBodyBuilt[inbox] ??= builtOnce(inbox, LARGE_BODIES[inbox]));
}

const largeBodyBuilt: Partial<Record<LargeBodyInbox, Promise<Buffer>>> = {};

/** 28,000 lines with multi-byte characters on every one: 2.1 MB of text once its line ends are LF. */
const largeText = () =>
	Array.from({ length: 28_000 }, (_, i) => `Line ${i}: café, €uro ✓ and https://example.test/${i % 50} in a longer sentence.\r\n`).join('');

/** 2.2 MB of text (2.5 MB on the wire). */
const flowed = () => 'Caf=E9 au lait, tr=E8s bien, a line that flows on \r\nand on, with a soft =\r\nbreak.\r\n'.repeat(30_000);

const buildBody = (mail: Mail.Options) => composeMail({ from: 'bodies@sender.test', ...mail });

const LARGE_BODIES: Record<LargeBodyInbox, () => Promise<Buffer>> = {
	'text@bodies.test': () => buildBody({ subject: 'plain', text: largeText() }),
	'both@bodies.test': () => {
		const text = largeText();
		return buildBody({ subject: 'both', text, html: `<div>${text.replace(/\r\n/g, '<br>')}</div>`, textEncoding: 'base64' });
	},
	'nested@bodies.test': async () => {
		const text = largeText();
		return buildBody({
			subject: 'with a message attached',
			text,
			html: '<p>short</p>',
			attachments: [
				{ contentType: 'message/rfc822', content: await buildBody({ subject: 'inner', to: 'x@inner.test', text: `inner ${text}` }) },
			],
		});
	},
	'latin@bodies.test': () =>
		Promise.resolve(
			Buffer.from(
				'From: bodies@sender.test\r\nSubject: latin\r\nContent-Type: text/plain; charset=iso-8859-1; format=flowed\r\n' +
					`Content-Transfer-Encoding: quoted-printable\r\n\r\n${flowed()}`,
			),
		),
};

/** The paragraphs of largeHtmlOnly(): each with a link to one of 20 pages. */
export const HTML_PARAGRAPHS = 30_000;

/**
 * A message with a large HTML body (2.6 MB) and no text, to html@bodies.test, the same bytes every time it is asked for
 * in a file. Written out here rather than by nodemailer, which sends a string of over 128 KB in quoted-printable (a second
 * to encode, and more for the server to decode): a paragraph a line, each line well within SMTP's 998 characters (7bit).
 */
export function largeHtmlOnly(): Promise<Buffer> {
	return (largeHtmlOnlyBuilt ??= Promise.resolve(buildLargeHtmlOnly()));
}

let largeHtmlOnlyBuilt: Promise<Buffer> | undefined;

function buildLargeHtmlOnly(): Buffer {
	const paragraphs = Array.from(
		{ length: HTML_PARAGRAPHS },
		(_, i) => `<p>Paragraph ${i} with <a href="https://example.test/p${i % 20}">a link</a> &amp; more.</p>`,
	);
	const headers = [
		'Subject: html',
		'Message-ID: <large-html-only@bodies.test>',
		'MIME-Version: 1.0',
		'Content-Type: text/html; charset=utf-8',
		'Content-Transfer-Encoding: 7bit',
	];
	return Buffer.from([...headers, '', ...paragraphs, ''].join('\r\n'));
}
