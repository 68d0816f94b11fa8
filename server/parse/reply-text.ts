import EmailReplyParser from 'email-reply-parser';

/*
 * The new text of a reply: what is left of a message's text once the quoted earlier messages (with the lines that
 * introduce them) and the signature are taken away.
 *
 * email-reply-parser knows the quote headers and signature lines of many clients and languages, but its regular
 * expressions run over the whole text and backtrack: 8 KB of crafted text keeps it busy for seconds. So it is only
 * asked about one short line at a time (is this a quote header, does a signature start here), a bounded number of
 * times per message. The shape of the message (which lines are quoted, where the earlier message starts, which lines
 * are the person's own) is worked out here a line at a time, with only anchored or literal patterns, and so are the
 * layouts the library does not know: Outlook's From/Sent/To/Subject block and its separators in seven languages,
 * attributions that Gmail wraps over two lines, quotes without a blank line before them, and more mobile footers.
 */

/** Past this many characters a text is not read: the new text is at the top, and a large message costs a few milliseconds. */
export const MAX_REPLY_TEXT_CHARS = 64 * 1024;
/** A longer line is never a quote header (Gmail wraps its attribution well before this). */
const MAX_HEADER_CHARS = 250;
/** A longer line never starts a signature. */
const MAX_SIGNATURE_LINE_CHARS = 100;
/** A signature is looked for among the last lines of the person's text only. */
const SIGNATURE_SEARCH_LINES = 40;
/** How many lines of a message the library is asked about as quote headers: a question about a crafted line costs a few ms. */
const LIBRARY_HEADER_QUESTIONS = 12;
/** Blank lines allowed between an attribution and the quote it introduces (HTML converted to text adds some). */
const BLANKS_BELOW_ATTRIBUTION = 2;
/** Lines of an Outlook header block after its From line. */
const HEADER_BLOCK_LINES = 8;

const parser = new EmailReplyParser();

/** "On <date>, <name> wrote:" as each language writes it: the word it starts with and how it ends. */
const ATTRIBUTIONS: readonly { starts: RegExp; ends: RegExp }[] = [
	{ starts: /^On\s/, ends: /\swrote\s?:$/ }, // en: Gmail, Apple Mail, Thunderbird, Yahoo
	{ starts: /^Am\s/, ends: /\sschrieb[\s:]/ }, // de: "Am 03.06.2024 um 10:15 schrieb Max <max@…>:"
	// (The name is taken whole in a lookahead, which never backtracks: on a line without "<" it fails once, not 100 times.)
	{ starts: /^(?=([^<>]{1,100}))\1<[^<>\s]{1,100}>\sschrieb am\s/, ends: /:$/ }, // de, Gmail on Android: "Max <max@…> schrieb am Mo., 3. Juni 2024, 10:15:"
	{ starts: /^Le\s/, ends: /\sa\s+écrit\s?:$/ }, // fr: "… a écrit :"
	{ starts: /^El\s/, ends: /\sescribió\s?:$/ }, // es
	{ starts: /^Em\s/, ends: /\sescreveu\s?:$/ }, // pt
	{ starts: /^(?:Il|In data)\s/, ends: /\sscritto\s?:$/ }, // it: "Il giorno … ha scritto:"
	{ starts: /^Op\s/, ends: /\s(?:schreef\s|het volgende geschreven\s?:$)/ }, // nl: "… schreef Jan <…>:", Apple's "… heeft Jan het volgende geschreven:"
];
/** The ATTRIBUTIONS' `starts` in one: most lines stop here. */
const ATTRIBUTION_START = new RegExp(ATTRIBUTIONS.map(({ starts }) => starts.source).join('|'));
/** How a line that introduces a quote ends, whatever it starts with ("John Smith wrote:"). */
const QUOTE_INTRODUCTION_END = /\s(?:wrote|schrieb|a\s+écrit|escribió|escreveu|scritto|schreef|geschreven)\s?:$/;
/** A date and time, or an address: what tells an attribution from a sentence that happens to end in "wrote:". */
const TIME_OR_ADDRESS = /\d:\d\d|@/;

// Outlook's header block of the message replied to ("From: …", "Sent: …", "To: …", "Subject: …"), in each language.
const FROM_FIELD = /^\*?(?:From|Von|De|Van|Da)\s?:/;
const DATE_FIELD = /^\*?(?:Sent|Date|Gesendet|Datum|Envoyé|Enviado el|Enviado|Enviada em|Fecha|Data|Inviato|Verzonden)\s?:/;
const SUBJECT_FIELD = /^\*?(?:Subject|Betreff|Objet|Asunto|Assunto|Oggetto|Onderwerp)\s?:/;

/** "-----Original Message-----" (Outlook), "-------- Original message --------" (Android), Gmail's forwards. */
const SEPARATOR =
	/^-{2,}\s*(?:Original Message|Ursprüngliche Nachricht|Message d['’]origine|Mensaje original|Mensagem original|Messaggio originale|Oorspronkelijk bericht|Forwarded message|Weitergeleitete Nachricht|Message transféré|Mensaje reenviado|Mensagem encaminhada|Messaggio inoltrato|Doorgestuurd bericht)\s*-{2,}$/i;
/** A rule drawn above the earlier message: Outlook's "________________________________", an <hr> made text. */
const RULE = /^(?:_{3,}|-{3,}|={3,})$/;

/** A line of a `>` quote. */
const QUOTED = /^[ \t]*>/;
const NOT_BLANK = /\S/;

/** "-- ", the signature delimiter (RFC 3676); its space is often lost. */
const SIGNATURE_DELIMITER = /^--\s?$/;
/** What phones and mail apps add below the text, in each language. */
const SIGNATURE_FOOTERS: readonly RegExp[] = [
	/^Sent (?:from|with|via) \S/,
	/^Get Outlook for \S/,
	/^Von meinem \S.* gesendet\.?$/,
	/^Gesendet (?:von|mit) \S/,
	/^Outlook für \S.* herunterladen$/,
	/^Envoyé (?:de|depuis|à partir de) \S/,
	/^Télécharger Outlook pour \S/,
	/^Enviado (?:desde|con) \S/,
	/^Obtener Outlook para \S/,
	/^Enviado (?:do|de|pelo) \S/,
	/^Obter o Outlook para \S/,
	/^Inviato (?:da|dal|con) \S/,
	/^Scarica Outlook per \S/,
	/^(?:Verzonden|Verstuurd) (?:vanaf|met|van) \S/,
	/^Outlook voor \S.* downloaden$/,
];
/**
 * Closings that start a short name signature ("Viele Grüße\nAnna"), for the languages where the library knows none;
 * it knows "Regards", "Cheers", "Best wishes" and the French "Cordialement", "Bien à vous".
 */
const CLOSINGS =
	/^(?:best|(?:mit )?(?:freundlichen|besten|vielen|lieben|herzlichen) grü(?:ß|ss)en|(?:viele|beste|liebe|herzliche|freundliche) grü(?:ß|ss)e|grü(?:ß|ss)e|gru(?:ß|ss)|amicalement|bonne (?:journée|soirée|semaine)|(?:meilleures |sincères )?salutations|saludos(?: cordiales)?|un (?:cordial )?saludo|atentamente|un abrazo|atenciosamente|abraços|(?:com os )?(?:melhores )?cumprimentos|(?:cordiali|distinti) saluti|un saluto|saluti|(?:met )?(?:vriendelijke|hartelijke) groet(?:en)?|groet(?:en|jes)?)\s?[,.!]?$/i;

/** The new text of a message: without quoted earlier messages and without the signature. */
export function strippedReply(text: string): StrippedReply {
	const lines = text.slice(0, MAX_REPLY_TEXT_CHARS).replace(/\r\n?/g, '\n').split('\n');
	const questions = new LibraryQuestions();
	const earlier = earlierMessageStart(lines, questions);
	let end = earlier;
	// The rule drawn above the earlier message goes with it.
	if (earlier < lines.length) while (end > 0 && (isBlank(lines[end - 1]) || RULE.test(lines[end - 1].trim()))) end--;
	const runs = ownRuns(lines, end, questions);
	const last = runs[runs.length - 1];
	let strippedSignature: string | null = null;
	const start = last ? signatureStart(lines, last, runs.length > 1) : -1;
	if (start >= 0) {
		const delimited = SIGNATURE_DELIMITER.test(lines[start].trim());
		strippedSignature = joined(lines, { start: delimited ? start + 1 : start, end: last.end }) || null;
		last.end = start;
	}
	const strippedText = runs
		.map((run) => joined(lines, run))
		.filter((part) => part !== '')
		.join('\n\n');
	return { strippedText, strippedSignature };
}

/**
 * Where the earlier message starts when it is not `>` quoted (so everything from there on is it): an Outlook header
 * block, a separator, or an attribution followed by unquoted text; the length of `lines` when there is none.
 */
function earlierMessageStart(lines: readonly string[], questions: LibraryQuestions): number {
	for (let i = 0; i < lines.length; i++) {
		if (isQuoted(lines[i])) continue;
		const line = lines[i].trim();
		if (line === '' || line.length > MAX_HEADER_CHARS) continue;
		if (SEPARATOR.test(line)) return i;
		if (FROM_FIELD.test(line) && headerFieldsFollow(lines, i)) return i;
		const attribution = attributionAt(lines, i);
		if (attribution === 0 && !line.endsWith(':')) continue;
		// An attribution above `>` quoted lines goes with them (see ownRuns); one above plain lines cuts here.
		if (isQuoted(lines[nextNonBlank(lines, i + Math.max(attribution, 1))] ?? '')) continue;
		if (attribution > 0) return i;
		// The library is asked only about lines of other layouts: it would cut at "On Friday Mark wrote:".
		if (!looksLikeIntroduction(line) && questions.takesForQuoteHeader(line)) return i;
	}
	return lines.length;
}

/** Whether Outlook's date and subject fields follow the From field at `from`, in the lines of its block. */
function headerFieldsFollow(lines: readonly string[], from: number): boolean {
	let date = false;
	let subject = false;
	for (let i = from + 1; i < Math.min(lines.length, from + 1 + HEADER_BLOCK_LINES) && !isBlank(lines[i]); i++) {
		const line = lines[i].trim();
		date ||= DATE_FIELD.test(line);
		subject ||= SUBJECT_FIELD.test(line);
	}
	return date && subject;
}

/** How many lines (1, or 2 when wrapped) of an attribution with a date start at `i`, 0 when none does. */
function attributionAt(lines: readonly string[], i: number): number {
	const line = lines[i].trim();
	if (line.length > MAX_HEADER_CHARS || !ATTRIBUTION_START.test(line)) return 0;
	if (isDatedAttribution(line)) return 1;
	const next = lines[i + 1]?.trim() ?? '';
	if (next !== '' && !isQuoted(next) && line.length + next.length < MAX_HEADER_CHARS && isDatedAttribution(`${line} ${next}`)) return 2;
	return 0;
}

/** "On Mon, 3 Jun 2024 at 10:15, Name <a@b> wrote:" and its translations, with a time or an address in it. */
function isDatedAttribution(line: string): boolean {
	return isAttribution(line) && TIME_OR_ADDRESS.test(line);
}

/** An attribution in one of the seven languages, dated or not, or a line ending like one ("John wrote:"). */
function looksLikeIntroduction(line: string): boolean {
	return isAttribution(line) || QUOTE_INTRODUCTION_END.test(line);
}

function isAttribution(line: string): boolean {
	return line.endsWith(':') && ATTRIBUTIONS.some(({ starts, ends }) => starts.test(line) && ends.test(line));
}

/**
 * The person's own lines up to `end`, in runs between the `>` quoted blocks: each block goes, and with it the line
 * (or the two lines Gmail wraps it over) that introduces it, "On … wrote:".
 */
function ownRuns(lines: readonly string[], end: number, questions: LibraryQuestions): Run[] {
	const runs: Run[] = [];
	let start = 0;
	for (let i = 0; i < end; i++) {
		if (!isQuoted(lines[i])) continue;
		let lastQuoted = i;
		for (let j = i + 1; j < end && (isQuoted(lines[j]) || isBlank(lines[j])); j++) if (isQuoted(lines[j])) lastQuoted = j;
		runs.push({ start, end: introductionStart(lines, start, i, questions) });
		start = lastQuoted + 1;
		i = lastQuoted;
	}
	runs.push({ start, end });
	return runs.filter((run) => hasText(lines, run));
}

/** Where the introduction of the quote at `quote` starts, among the lines from `from`: `quote` when there is none. */
function introductionStart(lines: readonly string[], from: number, quote: number, questions: LibraryQuestions): number {
	let last = quote - 1;
	for (let blanks = 0; last >= from && isBlank(lines[last]) && blanks < BLANKS_BELOW_ATTRIBUTION; blanks++) last--;
	if (last < from || isBlank(lines[last])) return quote;
	const line = lines[last].trim();
	if (line.length > MAX_HEADER_CHARS) return quote;
	if (last > from && !isBlank(lines[last - 1]) && attributionAt(lines, last - 1) === 2) return last - 1;
	const introduces = looksLikeIntroduction(line) || (line.endsWith(':') && questions.takesForQuoteHeader(line));
	return introduces ? last : quote;
}

/**
 * Where the signature starts in the person's last run of lines, or -1: at the topmost of its last lines that starts
 * one. A closing ("Regards,") or a line only the library knows does not when nothing the person wrote is above it,
 * so a reply that is only "Cheers!" keeps it.
 */
function signatureStart(lines: readonly string[], run: Run, textBefore: boolean): number {
	let start = -1;
	let firstLine = run.start;
	while (isBlank(lines[firstLine])) firstLine++;
	for (let i = run.end - 1; i >= Math.max(run.start, run.end - SIGNATURE_SEARCH_LINES); i--) {
		const line = lines[i].trim();
		if (line === '' || line.length > MAX_SIGNATURE_LINE_CHARS) continue;
		if (SIGNATURE_DELIMITER.test(line) || SIGNATURE_FOOTERS.some((footer) => footer.test(line))) start = i;
		else if ((textBefore || i > firstLine) && (CLOSINGS.test(line) || takesForSignature(line))) start = i;
	}
	return start;
}

/** Asks email-reply-parser about single lines, at most LIBRARY_HEADER_QUESTIONS times as quote headers. */
class LibraryQuestions {
	private headerQuestions = 0;

	/** Whether the library takes `line` for the header of a quoted message (it needs a blank line above one). */
	takesForQuoteHeader(line: string): boolean {
		if (this.headerQuestions >= LIBRARY_HEADER_QUESTIONS) return false;
		this.headerQuestions++;
		return parser.read(`.\n\n${line}\n> .`).getVisibleText().trim() === '.';
	}
}

/**
 * What a line must look like for any of the library's signature patterns to take it (email-reply-parser 2.3.9's list: rules
 * of dashes, underscores, `+` or `=`, "Sent from", "Get Outlook for", "Cheers", "Best wishes", "… Regards", and their German,
 * Danish, French, Spanish, Italian and Dutch forms): a superset of them, so a line it leaves out is one the library would not
 * take, and the library (about 10 µs a question) is asked about a few lines instead of every one of the last 40.
 */
const SIGNATURE_CANDIDATE =
	/^\s*[-_+=]|^(?:sent|get|cheers|best|von|gesendet|sendt|envoy|t.l.charger|bien|bonne|enviado|verzonden|verstuurd|in\s*data)|regards|cordialement|scritto/i;

/** Whether the library takes `line` for the start of a signature (short lines only, so each question is cheap). */
function takesForSignature(line: string): boolean {
	if (!SIGNATURE_CANDIDATE.test(line)) return false;
	return parser
		.read(`.\n${line}`)
		.getFragments()
		.some((fragment) => fragment.isSignature());
}

function isQuoted(line: string): boolean {
	return QUOTED.test(line);
}

function isBlank(line: string): boolean {
	return !NOT_BLANK.test(line);
}

function hasText(lines: readonly string[], { start, end }: Run): boolean {
	for (let i = start; i < end; i++) if (!isBlank(lines[i])) return true;
	return false;
}

/** The lines of `run` as one text, trimmed. */
function joined(lines: readonly string[], { start, end }: Run): string {
	return lines.slice(start, end).join('\n').trim();
}

function nextNonBlank(lines: readonly string[], from: number): number {
	let i = from;
	while (i < lines.length && isBlank(lines[i])) i++;
	return i;
}

/** A run of the person's own lines: from `start` up to, not including, `end`. */
interface Run {
	start: number;
	end: number;
}

export interface StrippedReply {
	/** The text the person wrote, without quoted earlier messages and their attribution lines, without the signature; trimmed. */
	strippedText: string;
	/** The signature block when one is found (without its "-- " line), else null. */
	strippedSignature: string | null;
}
