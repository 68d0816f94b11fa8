import type { FastifySchemaValidationError } from 'fastify';
import { EXPECTED } from '../schemas/shared';
import { fieldPath, keysOfPointer, pathParameterWords } from './field-path';

/**
 * Validation errors as sentences that name the field as the request writes it and say what it takes, for every route:
 * Ajv's errors are turned into words by keyword, and a schema may say what it expects in words of its own (its
 * `x-expected`, see `expects`), which is how a union becomes one sentence ("webhook must be an http(s) URL, or null or ""
 * to clear it") and a pattern something a person can read. A path parameter is named by what it is ("alice" is not an
 * email address).
 */

/** An Ajv error as Fastify passes it on; `parentSchema` and `data` are there because Ajv runs with `verbose`. */
interface SchemaError extends FastifySchemaValidationError {
	parentSchema?: SchemaNode;
	data?: unknown;
}

interface SchemaNode {
	type?: string | string[];
	const?: unknown;
	enum?: unknown[];
	format?: string;
	maxLength?: number;
	anyOf?: SchemaNode[];
	oneOf?: SchemaNode[];
	properties?: Record<string, SchemaNode>;
	[EXPECTED]?: string;
}

/** What a failed validation comes down to: one error, or a union none of whose branches fits the value. */
type Failure = { error: SchemaError } | { union: SchemaError };

const UNIONS = new Set(['anyOf', 'oneOf']);
/** Errors saying the value is of another kind than a branch of a union takes (not: of the right kind, but wrong). */
const KIND_KEYWORDS = new Set(['type', 'const', 'enum']);
/** Errors about a value of the right kind: more useful than a union's general sentence. */
const SPECIFIC_KEYWORDS = new Set([
	'required',
	'additionalProperties',
	'minLength',
	'maxLength',
	'minimum',
	'maximum',
	'exclusiveMinimum',
	'exclusiveMaximum',
	'minItems',
	'maxItems',
	'minProperties',
	'maxProperties',
]);

const TYPE_WORDS: Record<string, string> = {
	string: 'a string',
	number: 'a number',
	integer: 'a whole number',
	boolean: 'true or false',
	object: 'a JSON object',
	array: 'an array',
	null: 'null',
};

const FORMAT_WORDS: Record<string, string> = {
	email: 'an email address',
	uri: 'a URL',
	'date-time': 'an ISO 8601 date-time with a time zone, such as 2026-11-22T10:22:07.601Z',
	date: 'a date such as 2026-11-22',
};

/** What is wrong, in one sentence, and the body field or query parameter it is about (none for the path or the body as a whole). */
export interface Problem {
	message: string;
	field?: string;
}

/** The problem of a request part that failed its schema: `context` is body, querystring, params or headers. */
export function validationProblem(errors: SchemaError[], context: string): Problem {
	if (errors.length === 0) return { message: `${WHOLE_PARTS[context] ?? 'The request'} is not valid` };
	const failure = failureOf(errors);
	if (context === 'params') return { message: pathSentence('union' in failure ? failure.union : failure.error, 'union' in failure) };
	if ('union' in failure) {
		const field = fieldOf(failure.union, context);
		return { message: `${field ?? WHOLE_PARTS[context]} must be ${unionWords(failure.union.parentSchema)}`, field };
	}
	return fieldSentence(failure.error, context);
}

/** A request part as a whole, when the problem is not one field's. */
const WHOLE_PARTS: Record<string, string> = { body: 'The body', querystring: 'The query', headers: 'The headers', params: 'The path' };

/** The field an error is about, as the request writes it; undefined for the part as a whole, and for headers (no form has them). */
function fieldOf(error: SchemaError, context: string, key?: string): string | undefined {
	if (context !== 'body' && context !== 'querystring') return undefined;
	const keys = keysOfPointer(error.instancePath);
	if (key !== undefined) keys.push(key);
	return keys.length ? fieldPath(keys) : undefined;
}

/**
 * Ajv reports a union's failure after those of its branches, so the last error is the decisive one. When only one branch
 * takes values of this kind (a string given to "null, "" or a URL"), what that branch found is what went wrong, unless
 * the union says in words what it takes and the branch found nothing more specific.
 */
function failureOf(errors: SchemaError[]): Failure {
	const last = errors[errors.length - 1];
	if (!UNIONS.has(last.keyword)) return { error: last };
	const plausible = branchesOf(errors.slice(0, -1), last).filter((branch) => !isOtherKind(branch[branch.length - 1], last));
	if (plausible.length === 1) {
		const inner = failureOf(plausible[0]);
		if ('union' in inner || isSpecific(inner.error, last) || !last.parentSchema?.[EXPECTED]) return inner;
	}
	return { union: last };
}

/** The errors of each branch of `union`, by branch (Ajv's schemaPath of a branch error is the union's, an index, and more). */
function branchesOf(errors: SchemaError[], union: SchemaError): SchemaError[][] {
	const branches = new Map<string, SchemaError[]>();
	const prefix = `${union.schemaPath}/`;
	for (const error of errors) {
		if (!error.schemaPath.startsWith(prefix)) continue;
		const index = error.schemaPath.slice(prefix.length).split('/')[0];
		branches.set(index, [...(branches.get(index) ?? []), error]);
	}
	return [...branches.values()];
}

/** The branch wants another kind of value: another type, a constant, or the empty string ("" to clear a setting). */
function isOtherKind(error: SchemaError, union: SchemaError): boolean {
	if (error.instancePath !== union.instancePath) return false;
	return KIND_KEYWORDS.has(error.keyword) || (error.keyword === 'maxLength' && error.params.limit === 0);
}

function isSpecific(error: SchemaError, union: SchemaError): boolean {
	return error.instancePath !== union.instancePath || SPECIFIC_KEYWORDS.has(error.keyword);
}

/** What a union takes: its own words, else each branch's, "a, b or c". */
function unionWords(schema: SchemaNode | undefined): string {
	if (schema?.[EXPECTED]) return schema[EXPECTED];
	return choice((schema?.anyOf ?? schema?.oneOf ?? []).flatMap(branchWords));
}

/** The values a branch takes, in words: one, or each of its few constants (true and false, an enum's). */
function branchWords(schema: SchemaNode): string[] {
	if (schema[EXPECTED]) return [schema[EXPECTED]];
	if (schema.const !== undefined) return [JSON.stringify(schema.const)];
	if (schema.enum) return schema.enum.map((value) => JSON.stringify(value));
	if (schema.type === 'boolean') return ['true', 'false'];
	if (schema.type === 'string' && schema.maxLength === 0) return ['""'];
	if (schema.format && FORMAT_WORDS[schema.format]) return [FORMAT_WORDS[schema.format]];
	return [typeof schema.type === 'string' ? (TYPE_WORDS[schema.type] ?? schema.type) : 'another value'];
}

/** "a", "a or b", "a, b or c" (or with `and`). */
function list(words: string[], conjunction = 'or'): string {
	return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} ${conjunction} ${words[words.length - 1]}`;
}

/** One of several values: "a or b", "one of a, b or c". */
const choice = (words: string[]) => (words.length > 2 ? `one of ${list(words)}` : list(words));

const plural = (count: unknown, noun: string) => `${String(count)} ${noun}${count === 1 ? '' : 's'}`;

/** One error of a body field or query parameter in words, starting with its name. */
function fieldSentence(error: SchemaError, context: string): Problem {
	const { params } = error;
	if (error.keyword === 'required') {
		const field = fieldOf(error, context, String(params.missingProperty));
		return { message: `${field} is required`, field };
	}
	if (error.keyword === 'additionalProperties') {
		const field = fieldOf(error, context, String(params.additionalProperty));
		return { message: unknownField(error, context, field), field };
	}
	const field = fieldOf(error, context);
	if (field === undefined && error.keyword === 'type' && context === 'body' && error.data == null)
		return { message: 'A body is required: send a JSON object, with Content-Type: application/json' };
	return { message: `${field ?? WHOLE_PARTS[context]} ${predicate(error)}`, field };
}

/** "webhok is not a field of this request; its fields are ...": what the object takes, to spot the typo by. */
function unknownField(error: SchemaError, context: string, field: string | undefined): string {
	const owner = fieldOf(error, context) ?? 'this request';
	const [noun, nouns] = context === 'querystring' ? ['query parameter', 'parameters'] : ['field', 'fields'];
	const known = Object.keys(error.parentSchema?.properties ?? {});
	const takes = known.length === 1 ? `; its only ${noun} is ${known[0]}` : known.length ? `; its ${nouns} are ${list(known, 'and')}` : '';
	return `${field} is not a ${noun} of ${owner}${takes}`;
}

/**
 * A path parameter's error, saying what the value is not (`"alice" is not an email address`): the path is not a form, so
 * the value is what the reader recognizes. Lengths and ranges name the parameter: `The label in the path must be ...`.
 */
function pathSentence(error: SchemaError, isUnion: boolean): string {
	const name = keysOfPointer(error.instancePath).join('.');
	const noun = pathParameterWords(name);
	const value = `"${shortened(String(error.data))}"`;
	const expected = error.parentSchema?.[EXPECTED];
	if (isUnion) return `${value} is not ${unionWords(error.parentSchema)}`;
	switch (error.keyword) {
		case 'type':
			return `${value} is not ${expected ?? `${typeWords(error.params.type)} (the ${noun} in the path)`}`;
		case 'enum':
			return `${value} is not ${withArticle(noun)}: ${list((error.params.allowedValues as unknown[]).map(String))}`;
		case 'format':
		case 'pattern':
			return `${value} is not ${expected ?? FORMAT_WORDS[String(error.params.format)] ?? withArticle(noun)}`;
		default:
			return `The ${noun} in the path ${predicate(error)}`;
	}
}

const withArticle = (noun: string) => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;

/** A value as a message quotes it: at most 64 characters. */
const shortened = (value: string) => (value.length > 64 ? `${value.slice(0, 63)}…` : value);

/** What the value must be, after the name of what it is: "must be at most 1000". */
function predicate(error: SchemaError): string {
	const { params } = error;
	const expected = error.parentSchema?.[EXPECTED];
	switch (error.keyword) {
		case 'type':
			return `must be ${expected ?? typeWords(params.type)}`;
		case 'enum':
			return `must be ${choice((params.allowedValues as unknown[]).map(String))}`;
		case 'const':
			return `must be ${JSON.stringify(params.allowedValue)}`;
		case 'format':
			return `must be ${expected ?? FORMAT_WORDS[String(params.format)] ?? `a valid ${String(params.format)}`}`;
		case 'pattern':
			return `must be ${expected ?? `text matching the pattern ${String(params.pattern)}`}`;
		case 'minLength':
			return params.limit === 1 ? 'must not be empty' : `must be at least ${plural(params.limit, 'character')} long`;
		case 'maxLength':
			return params.limit === 0 ? 'must be empty' : `must be at most ${plural(params.limit, 'character')} long`;
		case 'minimum':
			return `must be at least ${String(params.limit)}`;
		case 'maximum':
			return `must be at most ${String(params.limit)}`;
		case 'exclusiveMinimum':
			return `must be more than ${String(params.limit)}`;
		case 'exclusiveMaximum':
			return `must be less than ${String(params.limit)}`;
		case 'minItems':
			return `must have at least ${plural(params.limit, 'item')}`;
		case 'maxItems':
			return `must have at most ${plural(params.limit, 'item')}`;
		case 'minProperties':
			return `must have at least ${plural(params.limit, 'field')}`;
		case 'maxProperties':
			return `must have at most ${plural(params.limit, 'field')}`;
		default:
			// Keywords no schema here uses: Ajv's own words.
			return error.message ?? 'is not valid';
	}
}

function typeWords(type: unknown): string {
	const types = String(type).split(',');
	return list(types.map((name) => TYPE_WORDS[name] ?? name));
}
