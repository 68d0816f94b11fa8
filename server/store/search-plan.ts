/**
 * Account-wide search and filter as the engines run them, whichever engine: what the trigram index finds, what is checked
 * message by message, and the range of `received` to look in. Each engine turns a plan into its SQL (sqlite/ and postgres/
 * account-inbox.ts), over its index of private mail (messages_search), whose columns both engines name alike.
 */
import type { AuthMethod, SearchCondition, SearchQuery, TextField } from '../mail/search-query';
import type { AuthResult } from '../schemas/sender-auth';
import type { InboxFilter } from './store';

/** The text the index keeps of a message, by column. */
export type SearchColumn = 'sender' | 'sender_names' | 'recipients' | 'recipient_names' | 'subject' | 'body';

/** The columns each field of the query language looks in: `to:` covers the inbox (Bcc copies), as inbox-filter's andTo does. */
export const COLUMNS_OF: Record<TextField, SearchColumn[]> = {
	any: ['sender', 'sender_names', 'recipients', 'recipient_names', 'subject', 'body'],
	from: ['sender', 'sender_names'],
	to: ['recipients', 'recipient_names'],
	subject: ['subject'],
};

/** How much of a text body is indexed and searched: its first this many characters (code points). */
export const SEARCH_BODY_CHARS = 64 * 1024;

/**
 * How both the text and the terms are made case-insensitive, where JavaScript does it (PostgreSQL's index and SQLite's
 * scans): lower case in any script, whatever the database's locale. SQLite's trigram index folds with its own Unicode
 * tables, which agree but for a few special letters (dotted İ, final ς, titlecase digraphs).
 */
export const foldCase = (text: string): string => text.toLowerCase();

/** The first `count` characters (code points) of `text`, as SQLite's substr counts them. */
export function firstCharacters(text: string, count: number): string {
	if (text.length <= count) return text;
	let end = 0;
	for (let seen = 0; seen < count && end < text.length; seen++) end += text.codePointAt(end)! > 0xffff ? 2 : 1;
	return text.slice(0, end);
}

/** The trigram index finds text of at least this many characters; shorter text is looked for message by message. */
const TRIGRAM = 3;

/** Whether the trigram index can find `text` (both engines count characters, not bytes). */
export const isIndexable = (text: string): boolean => [...text].length >= TRIGRAM;

/** Some column of `columns` contains `text` (case-insensitively), or (negated) none does. */
export interface TextCheck {
	kind: 'text';
	columns: SearchColumn[];
	text: string;
	negated: boolean;
}

/** A condition checked on each message the index or the scan yields. */
export type Check =
	| TextCheck
	| { kind: 'read' | 'starred' | 'attachment' | 'authenticated'; negated: boolean }
	| { kind: 'label'; label: string; negated: boolean }
	| { kind: 'auth'; method: AuthMethod; result: AuthResult; negated: boolean };

export interface SearchPlan {
	/** Texts every message must contain, found through the trigram index. Empty: the account's sources are scanned instead. */
	indexed: TextCheck[];
	/** Checked message by message (texts too short for the index, or negated; states; labels). */
	checks: Check[];
	/** Only mail received at or after `from` and before `until` (epoch ms); either may be absent. */
	from?: number;
	until?: number;
}

/** The plan of a parsed query. */
export function planSearch(query: SearchQuery): SearchPlan {
	const plan = emptyPlan();
	for (const condition of query.conditions) add(plan, condition);
	return plan;
}

/** The plan of inbox-filter's conditions: andTo and andFrom look at addresses only (and andTo at the inbox), not names. */
export function planFilter(filter: InboxFilter): SearchPlan {
	const plan = emptyPlan();
	const text = (columns: SearchColumn[], value: string | undefined) =>
		value && addText(plan, { kind: 'text', columns, text: value, negated: false });
	text(['recipients'], filter.to);
	text(['sender'], filter.from);
	text(['subject'], filter.subject);
	if (filter.read !== undefined) plan.checks.push({ kind: 'read', negated: !filter.read });
	return plan;
}

/** Whether the plan's range of `received` is empty (`after:` at or past `before:`): nothing can match. */
export const matchesNothing = (plan: SearchPlan): boolean => plan.from !== undefined && plan.until !== undefined && plan.from >= plan.until;

const emptyPlan = (): SearchPlan => ({ indexed: [], checks: [] });

function add(plan: SearchPlan, condition: SearchCondition): void {
	switch (condition.kind) {
		case 'text':
			return addText(plan, { kind: 'text', columns: COLUMNS_OF[condition.field], text: condition.text, negated: condition.negated });
		case 'after':
		case 'before':
			// after:T keeps [T, ∞), before:T keeps (-∞, T); negated, each keeps the other side.
			if ((condition.kind === 'after') !== condition.negated) plan.from = Math.max(plan.from ?? -Infinity, condition.time);
			else plan.until = Math.min(plan.until ?? Infinity, condition.time);
			return;
		default:
			plan.checks.push(condition);
	}
}

function addText(plan: SearchPlan, check: TextCheck): void {
	if (!check.negated && isIndexable(check.text)) plan.indexed.push(check);
	else plan.checks.push(check);
}

/** What gives an engine's statement a placeholder for each value, as conditions are written. */
export interface Placeholders {
	add(value: unknown): string;
}

/** The plan's range of `received` as conditions on `column`. */
export function receivedIn(plan: SearchPlan, column: string, params: Placeholders): string[] {
	return [
		...(plan.from === undefined ? [] : [`${column} >= ${params.add(plan.from)}`]),
		...(plan.until === undefined ? [] : [`${column} < ${params.add(plan.until)}`]),
	];
}
