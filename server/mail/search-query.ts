/**
 * The query language of account-wide search (GET /api/inbox-search, the n8n node's Search), as Mailpit users know it:
 *
 *     invoice "order 42" from:billing to:alice subject:"your receipt" has:attachment is:unread is:starred
 *     after:2026-11-01 before:2026-12-01 label:paid -from:noreply
 *
 * A query is a list of conditions separated by whitespace, and a message matches when it meets every one (AND; there is
 * no OR). This module only parses: the store's engines turn the conditions into their SQL (server/store/search-plan.ts).
 *
 * - A word, or a "quoted phrase", is a substring (case-insensitive, any script) of the senders' addresses or names, the
 *   To addresses or names, the inbox, the subject or the text body.
 * - `from:`, `to:` (To and the inbox) and `subject:` narrow a word or a "quoted value" to that part of the message.
 * - `has:attachment`, `is:read`, `is:unread`, `is:starred` test the message's state; `label:` is one of its labels, exactly.
 * - `spf:`, `dkim:` and `dmarc:` take a result (pass, fail, softfail, neutral, none, temperror, permerror): the message's
 *   SPF or DMARC result, or (dkim:) the result of any of its DKIM signatures, `dkim:none` for a message with none;
 *   `is:authenticated` keeps mail whose sender was authenticated (see sender-auth.ts). Mail not verified matches none.
 * - `after:` and `before:` take a date (YYYY-MM-DD: midnight UTC starting that day) or an ISO 8601 time (UTC unless it
 *   says otherwise): `after:` keeps mail received at or after it, `before:` mail received strictly before it.
 * - `-` in front of any condition negates it.
 * - In quotes, `\"` is a quote and `\\` a backslash; a quote left open runs to the end of the query. Operator names and
 *   the values of is: and has: are case-insensitive.
 */

import { AUTH_RESULTS, type AuthResult } from '../schemas/sender-auth';

/** Which text of a message a word or phrase is looked for in: all of it, or the part an operator names. */
export type TextField = 'any' | 'from' | 'to' | 'subject';

/** One condition of a query. `is:unread` is `read` negated. */
export type SearchCondition =
	| { kind: 'text'; field: TextField; text: string; negated: boolean }
	| { kind: 'read' | 'starred' | 'attachment'; negated: boolean }
	| { kind: 'label'; label: string; negated: boolean }
	/** `spf:`, `dkim:` or `dmarc:` with a result; `is:authenticated`. */
	| { kind: 'auth'; method: AuthMethod; result: AuthResult; negated: boolean }
	| { kind: 'authenticated'; negated: boolean }
	/** `after:` (received at or after `time`, epoch ms) or `before:` (received before it). */
	| { kind: 'after' | 'before'; time: number; negated: boolean };

export type AuthMethod = 'spf' | 'dkim' | 'dmarc';

export interface SearchQuery {
	/** Every one must hold; never empty. */
	conditions: SearchCondition[];
}

/** Why a query cannot be run: the API answers 400 with the message. */
export class SearchQueryError extends Error {}

/** More conditions than this are refused: each one adds work to every message looked at. */
export const MAX_CONDITIONS = 20;

/**
 * A word or phrase longer than this is refused (as inbox-filter's terms are): its cost grows with its length on every
 * message compared, and nobody looks for a paragraph.
 */
export const MAX_TERM_CHARS = 256;

/** What an error message offers the user. */
export const OPERATORS_HELP =
	'words, "quoted phrases", from:, to:, subject:, label:, after:, before:, has:attachment, is:read, is:unread, is:starred, is:authenticated, spf:, dkim:, dmarc: (with a result such as pass or fail), and - in front of any of them to exclude it';

type ReadValue = (value: string, negated: boolean) => SearchCondition;

/** A word or phrase looked for in one part of the message. */
const textIn =
	(field: TextField): ReadValue =>
	(text, negated) => ({ kind: 'text', field, text, negated });

/** `spf:pass` and the like: the method's result, one of AUTH_RESULTS. */
const authResultOf =
	(method: AuthMethod): ReadValue =>
	(value, negated) => {
		const result = value.toLowerCase() as AuthResult;
		if (!AUTH_RESULTS.includes(result)) {
			throw new SearchQueryError(`${method}:${value} is not known: ${method}: takes ${AUTH_RESULTS.join(', ')}`);
		}
		return { kind: 'auth', method, result, negated };
	};

/** Each operator, by its name: its value read as a condition. A Map: no name of Object.prototype is an operator. */
const OPERATORS = new Map<string, ReadValue>([
	['from', textIn('from')],
	['to', textIn('to')],
	['subject', textIn('subject')],
	['label', (label, negated) => ({ kind: 'label', label, negated })],
	['spf', authResultOf('spf')],
	['dkim', authResultOf('dkim')],
	['dmarc', authResultOf('dmarc')],
	['after', (value, negated) => ({ kind: 'after', time: timeOf('after', value), negated })],
	['before', (value, negated) => ({ kind: 'before', time: timeOf('before', value), negated })],
	[
		'is',
		(value, negated) => {
			switch (value.toLowerCase()) {
				case 'read':
					return { kind: 'read', negated };
				case 'unread':
					return { kind: 'read', negated: !negated };
				case 'starred':
					return { kind: 'starred', negated };
				case 'authenticated':
					return { kind: 'authenticated', negated };
			}
			throw new SearchQueryError(`is:${value} is not known: is: takes read, unread, starred or authenticated`);
		},
	],
	[
		'has',
		(value, negated) => {
			if (['attachment', 'attachments'].includes(value.toLowerCase())) return { kind: 'attachment', negated };
			throw new SearchQueryError(`has:${value} is not known: has: takes attachment`);
		},
	],
]);

/** An operator: letters and a colon, at the start of a condition (`http://x` is one too: quote it to look for it). */
const OPERATOR_NAME = /([A-Za-z]+):/y;
const SPACE = /\s/;

/** Parses a query; SearchQueryError, saying what is wrong and what the language offers, for one that cannot be run. */
export function parseSearchQuery(input: string): SearchQuery {
	const conditions = new QueryReader(input).conditions();
	if (conditions.length === 0) throw new SearchQueryError(`The query is empty: give ${OPERATORS_HELP}`);
	if (conditions.length > MAX_CONDITIONS) {
		throw new SearchQueryError(`The query has ${conditions.length} conditions: at most ${MAX_CONDITIONS} are taken`);
	}
	for (const condition of conditions) {
		const length = condition.kind === 'text' ? [...condition.text].length : 0;
		if (length > MAX_TERM_CHARS) {
			throw new SearchQueryError(`A word or phrase of the query has ${length} characters: at most ${MAX_TERM_CHARS} are taken`);
		}
	}
	return { conditions };
}

/** Reads conditions off the query, left to right. */
class QueryReader {
	private at = 0;

	constructor(private readonly input: string) {}

	conditions(): SearchCondition[] {
		const found: SearchCondition[] = [];
		for (this.skipSpace(); this.at < this.input.length; this.skipSpace()) found.push(this.condition());
		return found;
	}

	private condition(): SearchCondition {
		// A lone "-" is a word; "-" before anything else negates it.
		const negated = this.input[this.at] === '-' && this.at + 1 < this.input.length && !SPACE.test(this.input[this.at + 1]);
		if (negated) this.at++;
		if (this.input[this.at] === '"') return { kind: 'text', field: 'any', text: this.quoted(), negated };
		OPERATOR_NAME.lastIndex = this.at;
		const operator = OPERATOR_NAME.exec(this.input);
		if (!operator) return { kind: 'text', field: 'any', text: this.bare(), negated };
		const name = operator[1].toLowerCase();
		const read = OPERATORS.get(name);
		if (!read) {
			throw new SearchQueryError(
				`${operator[0]} is not an operator of search (to look for it as text, put it in quotes): the query takes ${OPERATORS_HELP}`,
			);
		}
		this.at = OPERATOR_NAME.lastIndex;
		const value = this.input[this.at] === '"' ? this.quoted() : this.bare();
		if (value === '')
			throw new SearchQueryError(`${name}: needs a value right after the colon (${name}:something, or ${name}:"some thing")`);
		return read(value, negated);
	}

	/** Up to the next whitespace. */
	private bare(): string {
		const start = this.at;
		while (this.at < this.input.length && !SPACE.test(this.input[this.at])) this.at++;
		return this.input.slice(start, this.at);
	}

	/** From an opening quote to its closing one (or the end): `\"` is a quote, `\\` a backslash. Never empty. */
	private quoted(): string {
		let text = '';
		for (this.at++; this.at < this.input.length; this.at++) {
			const char = this.input[this.at];
			if (char === '"') {
				this.at++;
				break;
			}
			const next = this.input[this.at + 1];
			if (char === '\\' && (next === '"' || next === '\\')) this.at++;
			text += this.input[this.at];
		}
		if (text === '') throw new SearchQueryError('Empty quotes ("") match nothing: put the text to look for between them');
		return text;
	}

	private skipSpace(): void {
		while (this.at < this.input.length && SPACE.test(this.input[this.at])) this.at++;
	}
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** The epoch ms of a date (its midnight UTC) or an ISO 8601 time (UTC without a zone); SearchQueryError otherwise. */
function timeOf(operator: string, value: string): number {
	const time = DATE.test(value) ? dateTime(DATE.exec(value)!) : TIME.test(value) ? dateTime(TIME.exec(value)!) : undefined;
	if (time === undefined) {
		throw new SearchQueryError(
			`${operator}:${value} is not a date: give YYYY-MM-DD (midnight UTC) or an ISO 8601 time such as 2026-11-25T09:30:00Z (UTC unless it has an offset)`,
		);
	}
	return time;
}

/** The time the fields of DATE or TIME name, or undefined when it does not exist (2026-02-30, 24:00). */
function dateTime([, year, month, day, hours = '0', minutes = '0', seconds = '0', fraction = '', zone = 'Z']: RegExpExecArray):
	number | undefined {
	const [y, mo, d, h, mi, s] = [year, month, day, hours, minutes, seconds].map(Number);
	const ms = Number(fraction.slice(0, 3).padEnd(3, '0'));
	const local = Date.UTC(y, mo - 1, d, h, mi, s, ms);
	const back = new Date(local);
	// Date.UTC rolls over (month 13, day 32, hour 24): a value that does not come back as given is not a time.
	if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || back.getUTCHours() !== h) return undefined;
	if (back.getUTCMinutes() !== mi || back.getUTCSeconds() !== s) return undefined;
	const offset = zoneOffsetMinutes(zone);
	return offset === undefined ? undefined : local - offset * 60_000;
}

/** Minutes east of UTC of `Z`, `+02:00` or `-0530`; undefined for an offset that is not one (+25:00). */
function zoneOffsetMinutes(zone: string): number | undefined {
	if (zone.toUpperCase() === 'Z') return 0;
	const digits = zone.slice(1).replace(':', '');
	const [hours, minutes] = [Number(digits.slice(0, 2)), Number(digits.slice(2))];
	if (hours > 23 || minutes > 59) return undefined;
	return (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
}
