import { createWriteStream } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MailParser } from 'mailparser';
import type { BodySegment } from '../bytes/message-body';
import { decodeAsItStreams } from './streaming-quoted-printable';

/** A part as mailparser (3.9) keeps it while it parses. */
interface PartState {
	isAttachment?: boolean;
	/** Undoes the transfer encoding; mailparser writes the part's body into it. */
	decoder?: Transform;
	/** What a text part's text is read from (the decoder, or charset and format=flowed decoding after it). */
	contentStream?: Readable;
	textContent?: string;
}

/** What of mailparser's parse state this relies on: the part being parsed, and the step that sets it up. */
interface ParserState {
	curnode?: PartState;
	processChunk: (this: ParserState, data: { type: string }, done: (err?: Error) => void) => void;
	/** Puts the parts' texts together once the input has ended. */
	cleanup: (this: ParserState, done: (err?: Error) => void) => void;
}

/** Calls `setUp` for each part mailparser has just set up, before any of its data arrives: for one parser, or (its prototype) all. */
function afterPartSetUp(target: ParserState, setUp: (part: PartState) => void): void {
	const processChunk = target.processChunk;
	target.processChunk = function (this: ParserState, data, done) {
		processChunk.call(this, data, done);
		if (data.type === 'node' && this.curnode) setUp(this.curnode);
	};
}

let quotedPrintableHooked = false;

/**
 * Makes every MailParser of this thread, simpleParser's own included, decode quoted-printable as it streams (see
 * decodeAsItStreams): in linear time, and not gathered whole. Once per thread; later calls do nothing.
 */
export function decodeQuotedPrintableAsItStreams(): void {
	if (quotedPrintableHooked) return;
	quotedPrintableHooked = true;
	afterPartSetUp(MailParser.prototype as unknown as ParserState, (part) => part.decoder && decodeAsItStreams(part.decoder));
}

/**
 * Decodes text as mailparser does once it has gathered a part (`Buffer.concat(chunks).toString()`,
 * then CRLF and CR-less LF both become LF), but as it streams: a CR at the end of a chunk waits for the next.
 */
class TextPartNormalizer extends Transform {
	private readonly decoder = new StringDecoder('utf8');
	private pendingCr = false;

	override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
		this.emitText(this.decoder.write(chunk));
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
		if (text) this.push(Buffer.from(text.replace(/\r?\n/g, '\n')));
	}
}

/**
 * Makes mailparser stream every part of a spooled (large) message. mailparser gathers each text and
 * HTML part whole in memory, and then joins them, holding several copies at once; here each such part
 * streams into a file of its own instead, through the same decoding. In mailparser's result a marker
 * stands where the part's text would be, so its rules for putting parts together (alternatives,
 * attached messages) still decide the text and HTML; `segments` then tells the literal text from the
 * files. (Quoted-printable parts are decoded as they stream in every parse: see decodeQuotedPrintableAsItStreams.)
 *
 * A text part that does not look as expected is left to mailparser: gathered in memory as before.
 */
export function streamSpooledParts(parser: MailParser, pathOf: (index: number) => string) {
	const marker = `\u0000${randomBytes(8).toString('hex')}:`;
	const files: string[] = [];
	const writes: Promise<void>[] = [];
	let failure: Error | undefined;

	const state = parser as unknown as ParserState;
	// mailparser puts the texts together once the input has ended, waiting for the last part's stream to end only while no
	// other part's decoder has ended (its flag is never reset): a part still streaming into its file would have no text yet,
	// and its text (an HTML body after a text one) would be lost. So the texts are put together once every part's file is
	// written (or its write failed: written() reports that).
	const cleanup = state.cleanup;
	state.cleanup = function (done) {
		void Promise.all(writes).then(() => cleanup.call(this, done));
	};

	afterPartSetUp(state, (part) => {
		const stream = part.contentStream;
		if (!stream || part.isAttachment) return;
		const gather = stream.listeners('readable');
		if (gather.length !== 1) return;
		stream.removeListener('readable', gather[0] as () => void);
		const index = files.push(pathOf(files.length)) - 1;
		let bytes = 0;
		stream.on('data', (chunk: Buffer | string) => (bytes += chunk.length));
		// After mailparser's own 'end' handler, which sets the (now empty) gathered text; an empty part stays empty, as there.
		stream.once('end', () => (part.textContent = bytes > 0 ? `${marker}${index}\u0000` : ''));
		writes.push(pipeline(stream, new TextPartNormalizer(), createWriteStream(files[index])).catch((err: Error) => void (failure ??= err)));
	});

	return {
		/** Resolves once every part's file is written; rejects with the first write that failed. */
		async written(): Promise<void> {
			await Promise.all(writes);
			if (failure) throw failure;
		},
		/** mailparser's text or HTML, its markers replaced by the files they stand for. */
		segments(assembled: string): BodySegment[] {
			return assembled
				.split(new RegExp(`${marker}(\\d+)\u0000`))
				.map((piece, i) => (i % 2 === 1 ? { file: files[Number(piece)] } : piece))
				.filter((segment) => segment !== '');
		},
	};
}
