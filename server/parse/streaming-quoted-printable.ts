import { Transform, type TransformCallback } from 'node:stream';
// libqp 3 decodes as 2.1.2 (which mailsplit asks for, and so the in-memory reference parse, simpleParser) does, but strips trailing blanks in linear time: 2.1.2's regular
// expression takes time quadratic in a run of blanks (100,000 spaces: 21 s).
import { decode } from 'libqp3';

const EQUALS = 0x3d;
const CR = 0x0d;
const LF = 0x0a;
const isBlank = (byte: number) => byte === 0x20 || byte === 0x09;
/** Bytes a piece must not end with: decoding strips trailing blanks and treats "=" or "=\r" at the end as a soft line break. */
const HELD_BACK = new Set([EQUALS, 0x20, 0x09, CR]);
/** Soft line breaks looked through before a cut; behind more of them in a row (never seen in real mail) the cut moves back. */
const MAX_SOFT_BREAKS = 2;

/** The index before `end` of the last byte that is not a blank, or -1. */
function beforeBlanks(bytes: Buffer, end: number): number {
	let i = end - 1;
	while (i >= 0 && isBlank(bytes[i])) i--;
	return i;
}

/**
 * Where the soft line break that ends just before `end` begins, or -1 when none does. As libqp reads them, once it has
 * stripped the blanks before every CR and LF: "=", then LF or CR LF, with blanks anywhere after the "=".
 */
function softBreakBefore(bytes: Buffer, end: number): number {
	if (bytes[end - 1] !== LF) return -1;
	let i = beforeBlanks(bytes, end - 1);
	if (bytes[i] === CR) i = beforeBlanks(bytes, i);
	return i >= 0 && bytes[i] === EQUALS ? i : -1;
}

/**
 * Whether an "=" may be among the last two characters before `cut` once soft line breaks are taken out (as decoding
 * does before it reads "=XX"): an escape begun there would end after the cut. "==\n0" | "0" decodes as "=00" together.
 */
function mayEndInEscape(bytes: Buffer, cut: number): boolean {
	let end = cut;
	let softBreaks = 0;
	for (let characters = 0; characters < 2 && end > 0; characters++) {
		for (let start = softBreakBefore(bytes, end); start >= 0; start = softBreakBefore(bytes, end)) {
			if (++softBreaks > MAX_SOFT_BREAKS) return true;
			end = start;
		}
		if (end > 0 && bytes[--end] === EQUALS) return true;
	}
	return false;
}

/**
 * Where `bytes` can be cut so that decoding the two sides apart gives what decoding them together
 * would: not within an escape (soft line breaks inside it included), not after a blank (it may end a
 * line), "=" or CR (of a soft line break); 0 when nowhere. Whether a place is safe depends only on
 * the bytes before it, so places up to `checked` (found unsafe before) are not looked at again.
 */
function safeCut(bytes: Buffer, checked: number): number {
	for (let cut = bytes.length; cut > checked; cut--) if (!HELD_BACK.has(bytes[cut - 1]) && !mayEndInEscape(bytes, cut)) return cut;
	return 0;
}

/**
 * Held back this long without a safe cut, a part is not quoted-printable as mail writes it (lines
 * end within 998 bytes): the rest of it is gathered and decoded whole at its end, as libqp does.
 */
const MAX_HELD_BYTES = 64 * 1024;

/**
 * A quoted-printable stream decoder that decodes as the data streams, where libqp's (which mailsplit gives quoted-printable
 * parts) gathers a part whole and decodes it at the end: each chunk up to a safe cut, the rest held for the next. Its
 * output is what libqp 2.1.2 gives for the whole part.
 */
export class QuotedPrintableDecoder extends Transform {
	private held = Buffer.alloc(0);
	private gathered: Buffer[] | undefined;

	override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
		if (this.gathered) {
			this.gathered.push(Buffer.from(chunk));
			return done();
		}
		const bytes = this.held.length ? Buffer.concat([this.held, chunk]) : chunk;
		const cut = safeCut(bytes, this.held.length);
		this.held = Buffer.from(bytes.subarray(cut));
		if (cut > 0) this.push(decode(bytes.subarray(0, cut)));
		if (this.held.length > MAX_HELD_BYTES) this.gathered = [this.held];
		done();
	}

	override _flush(done: TransformCallback): void {
		const rest = this.gathered ? Buffer.concat(this.gathered) : this.held;
		if (rest.length) this.push(decode(rest));
		done();
	}
}
