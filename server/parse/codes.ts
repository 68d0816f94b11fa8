import {
	CAPITAL_WORDS,
	ENTER_WORDS,
	FILLERS,
	INTRODUCERS,
	LABEL_PUNCTUATION,
	PROMOTION_LINE,
	UNITS,
	isConnective,
	isReferenceLabel,
	mailContext,
	mayNameCode,
	namesOneTimeCode,
	type MailContext,
} from './code-words';

/*
 * The one-time codes of a message (sign-up, login, verification and reset mail), found by reading it word by word:
 * a code is a word shaped like one (4-10 digits, digit groups, letters and digits) that stands next to a code word
 * ("code", "OTP", "PIN", "Bestätigungscode", "código", ...) or alone on a line near one. What only looks like a code
 * (dates, times, prices, phone numbers, order and invoice numbers, postal codes, ...) is told apart by its shape and by
 * the words around it (code-words.ts). Each word is looked at with a few neighbours, by character or by a regular
 * expression over that word alone, so the work grows with the length of the text and no more.
 */

/** The caller passes at most the first 256 KB of a text; anything past this many characters is not read. */
const MAX_TEXT_CHARS = 256 * 1024;
/** At most this many codes are listed. */
const MAX_CODES = 5;
/** A word longer than this is no code and is not looked into (a code word glued to a code is far shorter). */
const MAX_WORD_CHARS = 64;
/** A code and its code word stand at most this many words apart, within a sentence and with no other number between. */
const NEAR_WORDS = 6;
/** ... or this many, when a word such as "is" introduces the code ("Your code for the purchase of $19.99 is 482913"). */
const INTRODUCED_WORDS = 12;
/** A line is read in pieces of about this many characters. */
const MAX_LINE_CHARS = 4096;
/** A code alone on its line is near a code word in one of this many non-empty lines above it (or in the next one). */
const NEAR_LINES_ABOVE = 3;
/** A line of at most this many words, ending in a label ("Order number"), labels a number alone on the next line. */
const LABEL_LINE_WORDS = 4;

/** How likely a word is a code: next to a code word; alone on a line near one (or after "enter"); alone anywhere else. */
const NEXT_TO_CODE_WORD = 4;
const NEAR_CODE_WORD = 3;
const ALONE = 1;

const INVISIBLE = /[\u00ad\u200b-\u200d\u2060]/g;
const LEAD = new Set('([{"\'“”‘’«‹„*_<>');
const TRAIL = new Set(')]}"\'“”‘’»›*_<>.,;:!?');

// The shapes of a code. Digit groups ("482 913", "482-913") are joined; anything with letters is kept as shown.
const DIGIT_GROUPS = /^\d{1,5}(?:-\d{1,5}){1,9}$/;
const PREFIXED = /^[A-Z]{1,3}-(?=[A-Z]*\d)[A-Z0-9]{4,8}$/;
const LETTER_DIGIT_GROUPS = /^[A-Z0-9]{3,5}(?:-[A-Z0-9]{3,5}){1,2}$/;
const LETTERS_AND_DIGITS = /^[A-Za-z0-9]{4,10}$/;
const CAPITALS = /^[A-Z]{4,10}(?:-[A-Z]{3,5})?$/;
const YEAR = /^(?:19|20)\d\d$/;
const WITH_UNIT =
	/^\d+(?:st|nd|rd|th|px|pt|em|kg|mg|g|ml|l|gb|mb|kb|tb|km|cm|mm|m|h|hrs|min|s|ms|x|k|p|fps|hz|khz|mhz|ghz|mp|w|kw|kwh|v|mah|dpi)$/i;
const HAS_LOWER = /\p{Ll}/u;

/** The one-time codes of a message (subject and text), most likely first. */
export function findCodes(subject: string, text: string): string[] {
	const body = text.length > MAX_TEXT_CHARS ? text.slice(0, MAX_TEXT_CHARS) : text;
	const reader = new MailReader(mailContext(subject, body));
	reader.read(subject);
	for (let start = 0; start <= body.length;) {
		const end = body.indexOf('\n', start);
		reader.read(body.slice(start, end < 0 ? body.length : end));
		start = end < 0 ? body.length + 1 : end + 1;
	}
	return reader.codes();
}

/**
 * Reads a mail line by line, holding only what the lines to come may need: whether the mail has a code word so far,
 * the last few lines' code words, and a code alone on its line until the next line tells whether a code word follows.
 * A line is read in pieces of about MAX_LINE_CHARS (cut at a space), so what is held for a line stays small too.
 */
class MailReader {
	/** Codes next to a code word, or alone on a line near one. */
	private readonly sure = new Findings();
	/** Codes after "enter" or alone on a line far from code words: codes only in a mail with code words. */
	private readonly ifCodeWords = new Findings();
	private mailHasCodeWord = false;
	private items = 0;
	private nonEmptyLines = 0;
	private lastWithCodeWord = -Infinity;
	private label = '';
	private aloneAbove: { code: Code; position: number; near: boolean } | null = null;

	constructor(private readonly context: MailContext) {}

	read(line: string): void {
		const reading = line.length <= MAX_LINE_CHARS ? this.readPiece(line) : this.readLongLine(line);
		if (reading.empty) return;
		this.settleAloneAbove(reading.hasCodeWord);
		if (reading.alone && !isReferenceLabel(this.label)) {
			const near = this.nonEmptyLines - this.lastWithCodeWord < NEAR_LINES_ABOVE;
			this.aloneAbove = { code: reading.alone, position: reading.position, near };
		}
		this.nonEmptyLines++;
		if (reading.hasCodeWord) this.lastWithCodeWord = this.nonEmptyLines;
		this.mailHasCodeWord ||= reading.hasCodeWord;
		this.label = reading.label;
	}

	codes(): string[] {
		this.settleAloneAbove(false);
		if (this.mailHasCodeWord) this.sure.add(this.ifCodeWords);
		return this.sure.ranked();
	}

	/** The code alone on the line above: near a code word when one was in the lines above it or is in the line below. */
	private settleAloneAbove(codeWordBelow: boolean): void {
		const alone = this.aloneAbove;
		if (!alone) return;
		if (alone.near || codeWordBelow) this.sure.note(alone.code.value, NEAR_CODE_WORD, alone.position);
		else if (!alone.code.lowercase) this.ifCodeWords.note(alone.code.value, ALONE, alone.position);
		this.aloneAbove = null;
	}

	/** Reads a line, or a piece of one, and notes the codes next to code words and after "enter". */
	private readPiece(text: string): LineReading {
		const reading = readLine(text, this.items, this.context);
		this.items += reading.items;
		for (const { code, position } of reading.nextToCodeWord) this.sure.note(code.value, NEXT_TO_CODE_WORD, position);
		for (const { code, position } of reading.afterEnterWord) this.ifCodeWords.note(code.value, NEAR_CODE_WORD, position);
		return reading;
	}

	/**
	 * A line too long to hold at once, read in pieces cut at a space: one line with no code alone on it. A code word and
	 * its code may be cut apart where a piece ends.
	 */
	private readLongLine(line: string): LineReading {
		let empty = true;
		let hasCodeWord = false;
		for (let start = 0; start < line.length;) {
			const space = line.lastIndexOf(' ', start + MAX_LINE_CHARS);
			const end = start + MAX_LINE_CHARS >= line.length ? line.length : space > start ? space + 1 : start + MAX_LINE_CHARS;
			const piece = this.readPiece(line.slice(start, end));
			empty &&= piece.empty;
			hasCodeWord ||= piece.hasCodeWord;
			start = end;
		}
		return { ...EMPTY_LINE, empty, hasCodeWord };
	}
}

/**
 * The codes found, each with how likely it is one and where it first stands (its place among the mail's items). Codes
 * are noted in the order of the mail, so one that five likelier or as likely codes came before cannot be listed and
 * is not kept: what is kept stays small whatever the mail.
 */
class Findings {
	private readonly found = new Map<string, { likelihood: number; position: number }>();

	note(value: string, likelihood: number, position: number): void {
		const known = this.found.get(value);
		if (known) {
			if (likelihood > known.likelihood || (likelihood === known.likelihood && position < known.position))
				this.found.set(value, { likelihood, position });
			return;
		}
		let likelier = 0;
		for (const found of this.found.values()) if (found.likelihood >= likelihood) likelier++;
		if (likelier < MAX_CODES) this.found.set(value, { likelihood, position });
	}

	/** Adds the codes of other findings, noted in another order. */
	add(other: Findings): void {
		for (const [value, { likelihood, position }] of other.found) {
			const known = this.found.get(value);
			if (!known || likelihood > known.likelihood || (likelihood === known.likelihood && position < known.position))
				this.found.set(value, { likelihood, position });
		}
	}

	/** Most likely first, then in the order of the mail; a code merely alone on a line only when no other is near a code word. */
	ranked(): string[] {
		const ranked = [...this.found].sort(([, a], [, b]) => b.likelihood - a.likelihood || a.position - b.position);
		const best = ranked[0]?.[1].likelihood ?? 0;
		return ranked
			.filter(([, { likelihood }]) => best === ALONE || likelihood > ALONE)
			.slice(0, MAX_CODES)
			.map(([value]) => value);
	}
}

/** What one line says of codes: the codes next to code words, and the code that stands alone on it, if any. */
function readLine(line: string, position: number, context: MailContext): LineReading {
	const words = wordsOf(line);
	if (words.length === 0) return EMPTY_LINE;
	const items = itemsOf(words);
	let nextToCodeWord = NONE;
	let afterEnterWord = NONE;
	let hasCodeWord = false;
	let promotion: boolean | undefined;
	let capitals: boolean | undefined;
	for (let at = 0; at < items.length; at++) {
		const item = items[at];
		if (item.kind !== 'word') continue;
		const lower = item.word.lower;
		const enter = ENTER_WORDS.has(lower);
		const named = !enter && mayNameCode(lower) && namesOneTimeCode(lower, wordAt(items, at - 1), wordAfter(items, at), context);
		if (!named && !enter) continue;
		hasCodeWord ||= named;
		promotion ??= PROMOTION_LINE.test(line);
		if (promotion) continue;
		if (enter) {
			const after = codeAfter(items, at, AFTER_ENTER_WORD);
			if (after) (afterEnterWord = afterEnterWord === NONE ? [] : afterEnterWord).push({ code: after.code, position: position + after.at });
			continue;
		}
		// Capitals count only right after a code word, and not in a line all in capitals (a heading).
		capitals ??= HAS_LOWER.test(line);
		for (const placed of [codeAfter(items, at, capitals ? AFTER_CODE_WORD : AFTER_CODE_WORD_IN_CAPITALS), codeBefore(items, at)]) {
			if (placed)
				(nextToCodeWord = nextToCodeWord === NONE ? [] : nextToCodeWord).push({ code: placed.code, position: position + placed.at });
		}
	}
	const only = items.length === 1 && items[0].kind === 'code' ? items[0].code : null;
	return {
		empty: false,
		items: items.length,
		hasCodeWord,
		nextToCodeWord: nextToCodeWord.sort((a, b) => a.position - b.position),
		afterEnterWord,
		alone: only && !only.year ? only : null,
		position,
		label: words.length <= LABEL_LINE_WORDS ? words[words.length - 1].lower : '',
	};
}

const NONE: LineCode[] = [];
const AFTER_CODE_WORD: AfterCodeWord = { reach: NEAR_WORDS, years: true, capitals: true };
const AFTER_CODE_WORD_IN_CAPITALS: AfterCodeWord = { ...AFTER_CODE_WORD, capitals: false };
const AFTER_ENTER_WORD: AfterCodeWord = { reach: 2, years: false, capitals: false };

const EMPTY_LINE: LineReading = {
	empty: true,
	items: 0,
	hasCodeWord: false,
	nextToCodeWord: [],
	afterEnterWord: [],
	alone: null,
	position: 0,
	label: '',
};

/** The lower-case word item at `at` ("l'", "d'" set aside), or '' for a number or code. */
function wordAt(items: Item[], at: number): string {
	const item = items[at];
	if (item?.kind !== 'word') return '';
	const lower = item.word.lower;
	return lower.length > 2 && lower[1] === "'" && (lower[0] === 'd' || lower[0] === 'l') ? lower.slice(2) : lower;
}

/** The word after the item at `at`, past a connective ("code de vérification" gives "vérification"). */
function wordAfter(items: Item[], at: number): string {
	const next = wordAt(items, at + 1);
	return isConnective(next) ? wordAt(items, at + 2) : next;
}

/** The words of a line, split at white space (as `\s` does), each with the punctuation around it set apart. */
function wordsOf(line: string): Word[] {
	const words: Word[] = [];
	let start = -1;
	for (let at = 0; at <= line.length; at++) {
		if (at < line.length && !isSpace(line.charCodeAt(at))) {
			if (start < 0) start = at;
		} else if (start >= 0) {
			addToken(words, line.slice(start, at));
			start = -1;
		}
	}
	return words;
}

function isSpace(code: number): boolean {
	if (code < 0x80) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
	return (
		code === 0xa0 ||
		code === 0x1680 ||
		(code >= 0x2000 && code <= 0x200a) ||
		code === 0x2028 ||
		code === 0x2029 ||
		code === 0x202f ||
		code === 0x205f ||
		code === 0x3000 ||
		code === 0xfeff
	);
}

/** Adds the words of one whitespace-free token: one, or several where cells were glued together. */
function addToken(words: Word[], token: string): void {
	if (token.length > MAX_WORD_CHARS) {
		words.push(OPAQUE_WORD);
		return;
	}
	let digit = false;
	let letter = false;
	let colon = false;
	let address = false;
	let invisible = false;
	for (let at = 0; at < token.length; at++) {
		const code = token.charCodeAt(at);
		if (code >= 0x30 && code <= 0x39) digit = true;
		else if (((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a) || code >= 0xc0) letter = true;
		else if (code === 0x3a) colon = true;
		if (code === 0x2f || code === 0x40 || code === 0x3d || code === 0x26 || code === 0x3f || code === 0x23 || code === 0x25) address = true;
		else if (code === 0x2e && at + 1 < token.length && /\w/.test(token[at + 1])) address = true;
		if (code === 0xad || (code >= 0x200b && code <= 0x200d) || code === 0x2060) invisible = true;
	}
	const visible = invisible ? token.replace(INVISIBLE, '') : token;
	// Glued words are letters and digits, at least GLUED_LENGTH of them, or have a colon between.
	if (!digit || !letter || address || (!colon && visible.length < GLUED_LENGTH)) {
		words.push(wordOf(visible));
		return;
	}
	let start = 0;
	for (let at = 1; at < visible.length; at++) {
		if (!isGlued(visible, at)) continue;
		words.push(wordOf(visible.slice(start, at)));
		start = at;
	}
	words.push(wordOf(visible.slice(start)));
}

/**
 * Whether a token is two words glued together before `at`: where html-to-text joins table cells ("code482913",
 * "482913Expires") or after "Code:" written without a space. Never in an address, URL or query string (see addToken).
 */
function isGlued(token: string, at: number): boolean {
	if (token.charCodeAt(at - 1) === 0x3a) {
		const before = characterKind(token.charCodeAt(at - 2));
		return (before === LOWER || before === UPPER) && characterKind(token.charCodeAt(at)) !== OTHER;
	}
	return kindsAt(token, at - 3, WORD_THEN_DIGITS) || kindsAt(token, at - 4, DIGITS_THEN_WORD);
}

/** Whether the characters of `token` from `from` on are of `kinds`, in order. */
function kindsAt(token: string, from: number, kinds: readonly number[]): boolean {
	if (from < 0) return false;
	for (let offset = 0; offset < kinds.length; offset++) if (characterKind(token.charCodeAt(from + offset)) !== kinds[offset]) return false;
	return true;
}

const DIGIT = 1;
const LOWER = 2;
const UPPER = 3;
const OTHER = 0;
/** "code|4829", "4829|Exp": cut where the bar is. */
const WORD_THEN_DIGITS = [LOWER, LOWER, LOWER, DIGIT, DIGIT, DIGIT, DIGIT];
const DIGITS_THEN_WORD = [DIGIT, DIGIT, DIGIT, DIGIT, UPPER, LOWER, LOWER];
const GLUED_LENGTH = WORD_THEN_DIGITS.length;

/** Digit, lower-case letter, upper-case letter or anything else (NaN, past either end of a text, is anything else). */
function characterKind(code: number): number {
	if (code >= 0x30 && code <= 0x39) return DIGIT;
	if (code >= 0x61 && code <= 0x7a) return LOWER;
	if (code >= 0x41 && code <= 0x5a) return UPPER;
	if (!(code >= 0xc0)) return OTHER;
	const character = String.fromCharCode(code);
	if (character !== character.toUpperCase()) return LOWER;
	return character !== character.toLowerCase() ? UPPER : OTHER;
}

function wordOf(piece: string): Word {
	let start = 0;
	let end = piece.length;
	while (start < end && LEAD.has(piece[start])) start++;
	while (end > start && TRAIL.has(piece[end - 1])) end--;
	const core = piece.slice(start, end);
	let digits = 0;
	let letters = 0;
	for (let at = 0; at < core.length; at++) {
		const code = core.charCodeAt(at);
		if (code >= 0x30 && code <= 0x39) digits++;
		else if (((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a) || code >= 0xc0) letters++;
	}
	return {
		core,
		lead: piece.slice(0, start),
		trail: piece.slice(end),
		lower: letters ? core.toLowerCase() : core || piece,
		digits,
		onlyDigits: digits > 0 && digits === core.length,
		opaque: false,
	};
}

const OPAQUE_WORD: Word = { core: '', lead: '', trail: '', lower: '', digits: 0, onlyDigits: false, opaque: true };

/**
 * The line's words as items: numbers written in groups ("482 913", "+49 30 1234567") are one item, and each item
 * is a code, a number that is no code, or a word.
 */
function itemsOf(words: Word[]): Item[] {
	const items: Item[] = [];
	for (let at = 0; at < words.length;) {
		const first = words[at];
		let end = at + 1;
		if (first.onlyDigits) while (end < words.length && words[end].onlyDigits && !words[end - 1].trail && !words[end].lead) end++;
		const last = words[end - 1];
		if (first.opaque || (first.digits === 0 && end === at + 1)) {
			items.push(first.opaque ? { kind: 'number', last } : { kind: 'word', word: first, last, capitals: isCapitals(words, at) });
		} else {
			const code = end === at + 1 ? codeShape(first.core) : digitGroups(words.slice(at, end).map((word) => word.core));
			items.push(code && !notCode(words, at, end) ? { kind: 'code', code, last } : { kind: 'number', last });
		}
		at = end;
	}
	return items;
}

/** Whether the words before and after the code shaped words[at..end) make it something else. */
function notCode(words: Word[], at: number, end: number): boolean {
	const previous = words[at - 1];
	const next = words[end];
	const last = words[end - 1];
	// A number run on from the number before or after it (a phone number's "+49", a price's "1.299,00") is part of it.
	const runsOn = (word: Word | undefined, joint: string) => word !== undefined && !joint && word.digits > 0;
	if (runsOn(previous, (previous?.trail ?? '') + words[at].lead) || runsOn(next, last.trail + (next?.lead ?? ''))) return true;
	// What it counts or costs ("4999 USD", "EUR 4999", "1440 minutes").
	if ((next && !last.trail && UNITS.has(next.lower)) || (previous && !previous.trail && UNITS.has(previous.lower))) return true;
	return isReferenceLabel(labelBefore(words, at));
}

/** Whether words[at] is in capitals, as a code written in letters only is ("ABCDEF"), with no label before it. */
function isCapitals(words: Word[], at: number): boolean {
	const core = words[at].core;
	const first = core.charCodeAt(0);
	return (
		core.length >= 4 &&
		first >= 0x41 &&
		first <= 0x5a &&
		CAPITALS.test(core) &&
		!CAPITAL_WORDS.has(core) &&
		!isReferenceLabel(labelBefore(words, at))
	);
}

/** The word that labels words[at]: the one before it, or the one before that past punctuation ("Order no.: 123"). */
function labelBefore(words: Word[], at: number): string {
	const previous = words[at - 1];
	if (previous && LABEL_PUNCTUATION.has(previous.lower) && words[at - 2]) return words[at - 2].lower;
	return previous?.lower ?? '';
}

/** A run of numbers that is a code written in equal groups ("482 913", "4 8 2 9 1 3"), or null. */
function digitGroups(groups: string[]): Code | null {
	const size = groups[0].length;
	const even = groups.every((group) => group.length === size) && size <= 5 && (size > 1 || groups.length >= 4);
	const length = size * groups.length;
	return even && length >= 4 && length <= 10 ? { value: groups.join(''), year: false, lowercase: false } : null;
}

/** The code a word is shaped like, or null. */
function codeShape(core: string): Code | null {
	const code = (): Code => ({ value: core, year: YEAR.test(core), lowercase: HAS_LOWER.test(core) });
	if (core.length < 4) return null;
	if (/^\d+$/.test(core)) return core.length <= 10 ? code() : null;
	if (DIGIT_GROUPS.test(core)) return digitGroups(core.split('-'));
	if (PREFIXED.test(core)) return code();
	const hasLetter = /[A-Za-z]/.test(core);
	if (LETTER_DIGIT_GROUPS.test(core) && hasLetter) {
		const groups = core.split('-');
		return groups.every((group) => group.length === groups[0].length) ? code() : null;
	}
	return LETTERS_AND_DIGITS.test(core) && hasLetter && !WITH_UNIT.test(core) ? code() : null;
}

/**
 * The first code after a code word, in its sentence: within `reach` items and no other number between, or within
 * INTRODUCED_WORDS when a word such as "is" introduces it. Capitals and years count only right after the code word
 * ("code: ABCDEF", "PIN: 2024").
 */
function codeAfter(items: Item[], at: number, allow: AfterCodeWord): Placed | null {
	if (endsSentence(items[at])) return null;
	let crossedNumber = false;
	let close = true;
	for (let next = at + 1; next <= at + INTRODUCED_WORDS && next < items.length; next++) {
		const item = items[next];
		const previous = items[next - 1];
		const near = next - at <= allow.reach && !crossedNumber;
		const introduced =
			allow.reach === NEAR_WORDS && previous.kind === 'word' && (INTRODUCERS.has(previous.word.lower) || previous.last.trail.endsWith(':'));
		if (item.kind === 'code' && (near || introduced) && (!item.code.year || (allow.years && close))) return { code: item.code, at: next };
		if (item.kind === 'word' && item.capitals && allow.capitals && close) {
			return { code: { value: item.word.core, year: false, lowercase: false }, at: next };
		}
		if (endsSentence(item)) return null;
		if (item.kind !== 'word') crossedNumber = true;
		close &&= item.kind === 'word' && FILLERS.has(item.word.lower);
	}
	return null;
}

/** The nearest code within NEAR_WORDS items before a code word, in its sentence ("123456 is your Instagram code"). */
function codeBefore(items: Item[], at: number): Placed | null {
	for (let previous = at - 1; previous >= at - NEAR_WORDS && previous >= 0; previous--) {
		const item = items[previous];
		if (endsSentence(item) || item.kind === 'number') return null;
		if (item.kind === 'code') return item.code.year ? null : { code: item.code, at: previous };
	}
	return null;
}

function endsSentence(item: Item): boolean {
	const trail = item.last.trail;
	return trail.includes('.') || trail.includes('!') || trail.includes('?');
}

interface Word {
	/** The word without the punctuation around it. */
	core: string;
	lead: string;
	trail: string;
	/** `core` in lower case (the word itself when it is all punctuation). */
	lower: string;
	/** How many digits `core` has. */
	digits: number;
	onlyDigits: boolean;
	/** Too long to be looked into. */
	opaque: boolean;
}

interface Code {
	/** The code as it is typed: digit groups joined, anything with letters as shown. */
	value: string;
	year: boolean;
	lowercase: boolean;
}

/** A code; a number that is no code; or a word (`capitals` when it could be a code in capitals, "ABCDEF"). */
type Item =
	{ kind: 'code'; code: Code; last: Word } | { kind: 'number'; last: Word } | { kind: 'word'; word: Word; last: Word; capitals: boolean };

/** How far after a code word a code may stand, and whether a year or capitals may be one there. */
interface AfterCodeWord {
	reach: number;
	years: boolean;
	capitals: boolean;
}

interface Placed {
	code: Code;
	at: number;
}

interface LineCode {
	code: Code;
	/** Where it stands in the mail: its place among the mail's items, the subject's first. */
	position: number;
}

interface LineReading {
	empty: boolean;
	/** How many items (words, numbers, codes) the line has. */
	items: number;
	hasCodeWord: boolean;
	nextToCodeWord: LineCode[];
	afterEnterWord: LineCode[];
	/** The code that is the line's only item. */
	alone: Code | null;
	position: number;
	/** The last word of a short line, which may label a number on the next line ("Order number"). */
	label: string;
}
