import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { StringDecoder } from 'node:string_decoder';
import { Transform, Writable, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ChunkedPassthrough, Splitter, type MimeNode, type SplitterChunk } from '@zone-eu/mailsplit';
import FlowedDecoder from '@zone-eu/mailsplit/lib/flowed-decoder';
import type { Attachment } from 'mailparser';
import { headerDecoder, type HeaderLine } from './header-decoder';
import { QuotedPrintableDecoder } from './streaming-quoted-printable';

/**
 * A MIME parser on mailsplit's public Splitter, which mailparser itself is built on, that gives what simpleParser gives
 * (with Mailroom's PARSER_OPTIONS: no HTML-to-text, text-to-HTML, links or inlined images) while every part streams: each
 * attachment, and each text and HTML part, goes to an output of the caller's (a file, or memory), with backpressure all
 * along. The texts are then put together by mailparser's rules (alternatives, attached messages, mixed parts) from those
 * outputs, never as a whole in memory. A differential test holds it to simpleParser.
 */

/** The codecs mailparser decodes charsets and renders attached messages' headers with, as mailparser itself resolves them. */
const fromMailparser = createRequire(require.resolve('mailparser'));
const iconv = fromMailparser('iconv-lite') as { decodeStream(charset: string): Transform };
const libmime = fromMailparser('libmime') as { normalizeCharset(charset: string): string; detectMimeType(name: string): string | false };
const encodingJapanese = fromMailparser('encoding-japanese') as {
	convert(input: Buffer, options: { to: string; from: string; type: 'string' }): unknown;
};
const he = fromMailparser('he') as { encode(text: string): string };

/** Where a part's decoded bytes go, and what the caller makes of them once they have all gone. */
export interface PartOutput<T> {
	stream: Writable;
	result(): T;
}

/** Outputs for the parts: `Text` stands for a non-empty text or HTML part's text (UTF-8, line ends LF). */
export interface PartOutputs<Text, Content> {
	text(index: number): PartOutput<Text>;
	attachment(index: number): PartOutput<Content>;
}

/** An attachment as simpleParser describes it, with the caller's content. */
export type ParsedAttachmentOf<Content> = Omit<Attachment, 'content'> & { content: Content };

/** A text or HTML body as pieces to join: literal strings, and the texts of parts. */
export type BodyPieces<Text> = (string | Text)[];

export interface MimeParse<Text, Content> {
	headers: Map<string, unknown>;
	headerLines: HeaderLine[];
	/** Undefined where simpleParser has no text (or an empty one). */
	text?: BodyPieces<Text>;
	/** Undefined where simpleParser's HTML is `false`. */
	html?: BodyPieces<Text>;
	attachments: ParsedAttachmentOf<Content>[];
}

/** mailparser's parts whose text it reads (`keepDeliveryStatus` unset). */
const TEXT_TYPES: (string | false)[] = ['text/plain', 'text/html', 'message/delivery-status'];

/** A part as mailparser places it in its tree (createNode). */
interface TreeNode<Text> {
	node: MimeNode;
	headers: Map<string, unknown>;
	contentType: string | false;
	children: TreeNode<Text>[];
	parent?: TreeNode<Text>;
	root?: boolean;
	showMeta?: boolean;
	/** A text part's text, once written; only when it is not empty. */
	text?: Text;
}

/** What a leaf part's body is written into, and the streaming it sets off. */
interface OpenPart {
	decoder: Transform;
	ended: boolean;
	done: Promise<unknown>;
}

/**
 * Decodes text as mailparser does once it has gathered a part (`Buffer.concat(chunks).toString()`,
 * then CRLF and CR-less LF both become LF), but as it streams: a CR at the end of a chunk waits for the next.
 */
class TextPartNormalizer extends Transform {
	private readonly decoder = new StringDecoder('utf8');
	private pendingCr = false;
	bytes = 0;

	override _transform(chunk: Buffer | string, _encoding: BufferEncoding, done: TransformCallback): void {
		this.emitText(this.decoder.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
		done();
	}

	override _flush(done: TransformCallback): void {
		this.emitText(this.decoder.end(), true);
		done();
	}

	private emitText(decoded: string, last = false): void {
		let text = (this.pendingCr ? '\r' : '') + decoded;
		this.pendingCr = !last && text.endsWith('\r');
		if (this.pendingCr) text = text.slice(0, -1);
		if (!text) return;
		const bytes = Buffer.from(text.replace(/\r?\n/g, '\n'));
		this.bytes += bytes.length;
		this.push(bytes);
	}
}

/** mailparser's decoder for ISO-2022-JP and JIS, which iconv-lite lacks: gathers the part and converts it at its end. */
class JapaneseDecoder extends Transform {
	private readonly chunks: Buffer[] = [];

	constructor(private readonly charset: string) {
		super();
	}

	override _transform(chunk: Buffer | string, encoding: BufferEncoding, done: TransformCallback): void {
		this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk);
		done();
	}

	override _flush(done: TransformCallback): void {
		const input = Buffer.concat(this.chunks);
		try {
			const output = encodingJapanese.convert(input, { to: 'UNICODE', from: this.charset, type: 'string' });
			this.push(typeof output === 'string' ? Buffer.from(output) : (output as Buffer));
		} catch {
			this.push(input);
		}
		done();
	}
}

/** mailparser's charset decoding of a text part: none for ASCII and UTF-8, or for a charset iconv-lite does not know. */
function charsetDecoder(charset: string): Transform | undefined {
	if (['ascii', 'usascii', 'utf8'].includes(charset.toLowerCase().replace(/[^a-z0-9]+/g, ''))) return undefined;
	try {
		const normalized = libmime.normalizeCharset(charset || 'ascii');
		return /^jis|^iso-?2022-?jp/i.test(normalized) ? new JapaneseDecoder(normalized) : iconv.decodeStream(normalized);
	} catch {
		return undefined;
	}
}

/** Counts and hashes an attachment's bytes as they pass (mailparser's StreamHash, md5). */
class AttachmentHash extends Transform {
	private readonly hash = createHash('md5');
	size = 0;
	checksum = '';

	override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
		this.hash.update(chunk);
		this.size += chunk.length;
		done(null, chunk);
	}

	override _flush(done: TransformCallback): void {
		this.checksum = this.hash.digest('hex');
		done();
	}
}

/** The last value of a header mailparser may have kept several of. */
const lastOf = (value: unknown): unknown => (Array.isArray(value) ? (value[value.length - 1] as unknown) : value);

interface AddressField {
	html: string;
	text: string;
}

/** Parses `source`, a raw message, the way simpleParser does, streaming each part into its output. */
export async function parseMimeStream<Text, Content>(
	source: Readable,
	outputs: PartOutputs<Text, Content>,
): Promise<MimeParse<Text, Content>> {
	const splitter = new Splitter();
	const result: MimeParse<Text, Content> = { headers: new Map(), headerLines: [], attachments: [] };
	const attachmentContents: PartOutput<Content>[] = [];
	let textParts = 0;
	let tree: TreeNode<Text> | undefined;
	let current: TreeNode<Text> | undefined;
	let open: OpenPart | undefined;
	let hasText = false;
	let hasHtml = false;

	/** mailparser's createNode: where a part goes in the tree. */
	const place = (node: MimeNode): TreeNode<Text> => {
		const headerLines = node.headers ? node.headers.getList() : [];
		const placed: TreeNode<Text> = {
			node,
			headers: headerDecoder.processHeaders(headerLines),
			contentType: !node.contentType && node.root ? 'text/plain' : node.contentType,
			children: [],
		};
		if (node.root) {
			result.headers = placed.headers;
			result.headerLines = headerLines;
		}
		const attach = (parent: TreeNode<Text>) => {
			placed.parent = parent;
			parent.children.push(placed);
		};
		if (!tree || !current) {
			placed.root = true;
			tree = placed;
		} else if (!current.parent) attach(current);
		else if (current.parent.node === node.parentNode) attach(current.parent);
		else if (current.node === node.parentNode) attach(current);
		else {
			for (let parent: TreeNode<Text> | undefined = current.parent; parent; parent = parent.parent) {
				if (parent.node === node.parentNode) {
					attach(parent);
					break;
				}
			}
		}
		current = placed;
		return placed;
	};

	/** mailparser's handling of a part once it is placed: an attachment, a text part, or neither (multipart, attached message). */
	const start = (placed: TreeNode<Text>, node: MimeNode) => {
		if (node.contentType === 'message/rfc822' && node.messageNode) return;
		if (node.parentNode && node.parentNode.contentType === 'message/rfc822') placed.showMeta = true;
		const contentType = placed.contentType;
		if (/^multipart\//i.test(String(contentType))) return;
		let disposition: string | false = node.disposition;
		if (disposition && !['attachment', 'inline'].includes(disposition)) disposition = 'attachment';
		disposition = !disposition && !TEXT_TYPES.includes(contentType) ? 'attachment' : disposition || 'inline';
		const isAttachment = !TEXT_TYPES.includes(contentType) || disposition !== 'inline';
		const decoder = node.encoding === 'quoted-printable' ? new QuotedPrintableDecoder() : node.getDecoder();

		if (isAttachment) {
			const output = outputs.attachment(attachmentContents.length);
			attachmentContents.push(output);
			const hash = new AttachmentHash();
			const attachment = {
				type: 'attachment',
				contentType:
					contentType === 'application/octet-stream' && node.filename
						? libmime.detectMimeType(node.filename) || 'application/octet-stream'
						: contentType,
				headers: placed.headers,
			} as unknown as ParsedAttachmentOf<Content>;
			if (node.disposition) attachment.contentDisposition = node.disposition;
			if (node.filename) attachment.filename = node.filename;
			if (placed.headers.has('content-id')) attachment.contentId = [placed.headers.get('content-id') as string | string[]].flat().shift();
			result.attachments.push(attachment);
			const done = pipeline(decoder, hash, output.stream).then(() => {
				attachment.checksum = hash.checksum;
				attachment.size = hash.size;
			});
			done.catch(() => undefined);
			open = { decoder, ended: false, done };
			return;
		}

		if (placed.contentType === 'text/html') hasHtml = true;
		else hasText = true;
		const output = outputs.text(textParts++);
		const normalizer = new TextPartNormalizer();
		const charset = charsetDecoder(node.charset || 'utf-8');
		const stages: Transform[] = [decoder];
		if (node.flowed) stages.push(new FlowedDecoder({ delSp: node.delSp }) as unknown as Transform);
		if (charset) stages.push(charset);
		const done = pipeline([...stages, normalizer, output.stream]).then(() => {
			if (normalizer.bytes > 0) placed.text = output.result();
		});
		done.catch(() => undefined);
		open = { decoder, ended: false, done };
	};

	/** The part being written has ended (a boundary, or the end of the message): its outputs are complete once this resolves. */
	const finishPart = async () => {
		if (!open) return;
		const part = open;
		if (!part.ended) {
			part.ended = true;
			part.decoder.end();
		}
		await part.done;
		if (open === part) open = undefined;
	};

	const consume = async () => {
		for await (const data of splitter as AsyncIterable<SplitterChunk>) {
			if (data.type === 'node') {
				await finishPart();
				start(place(data), data);
			} else if (data.type === 'data') {
				await finishPart();
			} else if (open && !open.ended) {
				const part = open;
				// A part whose output failed has its streams destroyed: its outcome says why.
				if (part.decoder.destroyed || !part.decoder.write(data.value)) {
					if (!part.decoder.destroyed) {
						await new Promise<void>((resolve) => {
							const resume = () => {
								part.decoder.off('drain', resume).off('close', resume);
								resolve();
							};
							part.decoder.on('drain', resume).on('close', resume);
						});
					}
					if (part.decoder.destroyed) await part.done;
				}
			}
		}
		await finishPart();
	};

	const consumed = consume();
	try {
		await Promise.all([pipeline(source, new ChunkedPassthrough(), splitter), consumed]);
	} catch (err) {
		splitter.destroy();
		open?.decoder.destroy();
		await Promise.allSettled([consumed]);
		throw err;
	}

	attachmentContents.forEach((output, i) => (result.attachments[i].content = output.result()));
	if (tree) {
		const { text, html } = assemble(tree, hasText, hasHtml);
		if (html.length && !(html.length === 1 && html[0] === '')) result.html = join(html, '<br/>\n');
		if (text.length && !(text.length === 1 && text[0] === '')) result.text = join(text, '\n');
	}
	return result;
}

/** simpleParser copies these headers onto its result (`message-id` as `messageId`, …). */
const TOP_LEVEL_HEADERS = ['subject', 'references', 'date', 'to', 'from', 'cc', 'bcc', 'message-id', 'in-reply-to', 'reply-to'];

/** The fields simpleParser copies from a message's top-level headers. */
export function topLevelFields(headers: Map<string, unknown>): Record<string, unknown> {
	const fields: Record<string, unknown> = {};
	for (const key of TOP_LEVEL_HEADERS) {
		if (headers.has(key)) fields[key.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())] = headers.get(key);
	}
	return fields;
}

function join<Text>(pieces: BodyPieces<Text>, separator: string): BodyPieces<Text> {
	return pieces.flatMap((piece, i) => (i === 0 ? [piece] : [separator, piece])).filter((piece) => piece !== '');
}

/** mailparser's getTextContent (with skipHtmlToText and skipTextToHtml, which give '' where a conversion would go). */
function assemble<Text>(tree: TreeNode<Text>, hasText: boolean, hasHtml: boolean) {
	const text: BodyPieces<Text> = [];
	const html: BodyPieces<Text> = [];
	const visit = (alternative: boolean, node: TreeNode<Text>) => {
		if (node.showMeta) {
			const meta = ['From', 'Subject', 'Date', 'To', 'Cc', 'Bcc'].flatMap((key) => {
				const value = lastOf(node.headers.get(key.toLowerCase()));
				return node.headers.has(key.toLowerCase()) && value ? [{ key, value }] : [];
			});
			const isAddress = (key: string) => ['From', 'To', 'Cc', 'Bcc'].includes(key);
			if (hasHtml) {
				const rows = meta.map(({ key, value }) => {
					const shown = isAddress(key)
						? (value as AddressField).html
						: key === 'Date'
							? (value as Date).toUTCString()
							: key === 'Subject'
								? `<strong>${he.encode(value as string)}</strong>`
								: he.encode(value as string);
					return `<tr><td class="mp_head_key">${he.encode(key)}:</td><td class="mp_head_value">${shown}<td></tr>`;
				});
				html.push(`<table class="mp_head">${rows.join('\n')}<table>`);
			}
			if (hasText) {
				const lines = meta.map(({ key, value }) => {
					const shown = isAddress(key) ? (value as AddressField).text : key === 'Date' ? (value as Date).toUTCString() : (value as string);
					return `${key}: ${shown}`;
				});
				text.push(`\n${lines.join('\n')}\n`);
			}
		}
		if (node.text !== undefined) {
			if (node.contentType === 'text/plain' || node.contentType === 'message/delivery-status') {
				text.push(node.text);
				if (!alternative && hasHtml) html.push('');
			} else if (node.contentType === 'text/html') {
				if ((!alternative && hasText) || (node.root && !hasText)) text.push('');
				html.push(node.text);
			}
		}
		const inAlternative = alternative || node.contentType === 'multipart/alternative';
		for (const child of node.children) visit(inAlternative, child);
	};
	visit(false, tree);
	return { text, html };
}

/** Outputs kept in memory: each text a string, each attachment a buffer. */
export const inMemory: PartOutputs<string, Buffer> = {
	text: () => gathering((bytes) => bytes.toString()),
	attachment: () => gathering((bytes) => bytes),
};

function gathering<T>(make: (bytes: Buffer) => T): PartOutput<T> {
	const chunks: Buffer[] = [];
	const stream = new Writable({
		write(chunk: Buffer, _encoding, done) {
			chunks.push(chunk);
			done();
		},
	});
	return { stream, result: () => make(Buffer.concat(chunks)) };
}
