import type { FastifySchemaValidationError } from 'fastify';
import { EXPECTED } from '../schemas/shared';

/**
 * Validation errors as sentences that name the field and say what it takes, for every route: Ajv's errors are turned into
 * words by keyword, and a schema may say what it expects in words of its own (its `x-expected`, see `expects`), which
 * is how a union becomes one sentence ("body/webhook must be an http(s) URL, or null or "" to clear it") and a pattern
 * something a person can read.
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

/** The sentence for a request part that failed its schema: `context` is body, querystring, params or headers. */
export function validationMessage(errors: SchemaError[], context: string): string {
	if (errors.length === 0) return `${context} is not valid`;
	const failure = failureOf(errors);
	if ('union' in failure) return `${context}${failure.union.instancePath} must be ${unionWords(failure.union.parentSchema)}`;
	return sentence(failure.error, context);
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

/** "a", "a or b", "a, b or c". */
function list(words: string[]): string {
	return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

/** One of several values: "a or b", "one of a, b or c". */
const choice = (words: string[]) => (words.length > 2 ? `one of ${list(words)}` : list(words));

const plural = (count: unknown, noun: string) => `${String(count)} ${noun}${count === 1 ? '' : 's'}`;

/** One error in words, starting with the field it is about. */
function sentence(error: SchemaError, context: string): string {
	const where = `${context}${error.instancePath}`;
	const { params } = error;
	const expected = error.parentSchema?.[EXPECTED];
	switch (error.keyword) {
		case 'required':
			return `${where}/${String(params.missingProperty)} is required`;
		case 'additionalProperties':
			return `${where} has a field it does not take: "${String(params.additionalProperty)}"`;
		case 'type':
			if (error.instancePath === '' && context === 'body' && error.data == null)
				return 'body is required: send a JSON object, with Content-Type: application/json';
			return `${where} must be ${expected ?? typeWords(params.type)}`;
		case 'enum':
			return `${where} must be ${choice((params.allowedValues as unknown[]).map(String))}`;
		case 'const':
			return `${where} must be ${JSON.stringify(params.allowedValue)}`;
		case 'format':
			return `${where} must be ${expected ?? FORMAT_WORDS[String(params.format)] ?? `a valid ${String(params.format)}`}`;
		case 'pattern':
			return `${where} must be ${expected ?? `text matching the pattern ${String(params.pattern)}`}`;
		case 'minLength':
			return params.limit === 1 ? `${where} must not be empty` : `${where} must be at least ${plural(params.limit, 'character')} long`;
		case 'maxLength':
			return params.limit === 0 ? `${where} must be empty` : `${where} must be at most ${plural(params.limit, 'character')} long`;
		case 'minimum':
			return `${where} must be at least ${String(params.limit)}`;
		case 'maximum':
			return `${where} must be at most ${String(params.limit)}`;
		case 'exclusiveMinimum':
			return `${where} must be more than ${String(params.limit)}`;
		case 'exclusiveMaximum':
			return `${where} must be less than ${String(params.limit)}`;
		case 'minItems':
			return `${where} must have at least ${plural(params.limit, 'item')}`;
		case 'maxItems':
			return `${where} must have at most ${plural(params.limit, 'item')}`;
		case 'minProperties':
			return `${where} must have at least ${plural(params.limit, 'field')}`;
		case 'maxProperties':
			return `${where} must have at most ${plural(params.limit, 'field')}`;
		default:
			// Keywords no schema here uses: Ajv's own words, still after the field's name.
			return `${where} ${error.message ?? 'is not valid'}`;
	}
}

function typeWords(type: unknown): string {
	const types = String(type).split(',');
	return list(types.map((name) => TYPE_WORDS[name] ?? name));
}
