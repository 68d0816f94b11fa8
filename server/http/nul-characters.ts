import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from './errors';
import { fieldPath, pathParameterWords } from './field-path';

/**
 * The API takes no text with U+0000 in it, in a path parameter, the query or the body: PostgreSQL text cannot hold it, so
 * a label, an address setting or a subject with one would read back otherwise on one engine than on the other. Refused with
 * 400 before any route validates or acts, naming the field as validation messages do (`subject`, `headers.X-Note`, the
 * label in the path).
 */
export function refuseNulCharacters(app: FastifyInstance): void {
	app.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
		const parts: [Part, unknown][] = [
			['params', request.params],
			['querystring', request.query],
			['body', request.body],
		];
		for (const [part, value] of parts) {
			const found = nulIn(value);
			if (found !== undefined) return done(refusal(part, found));
		}
		done();
	});
}

type Part = 'params' | 'querystring' | 'body';

const NOT_TAKEN = 'contains a NUL character (U+0000), which the API does not take';

/** The 400 for a NUL found in `part`: in a value, or in a field's name (then the object holding the field is named). */
function refusal(part: Part, { keys, inName }: { keys: (string | number)[]; inName: boolean }) {
	if (part === 'params') return badRequest(`The ${pathParameterWords(String(keys[0]))} in the path ${NOT_TAKEN}`);
	const field = keys.length ? fieldPath(keys) : undefined;
	if (inName) return badRequest(`A field name in ${field ?? (part === 'body' ? 'the body' : 'the query')} ${NOT_TAKEN}`, field);
	return badRequest(`${field} ${NOT_TAKEN}`, field);
}

/** A value met in the walk of a request part, with the way to it: its key and the step it was reached from. */
interface Step {
	value: unknown;
	key: string | number | undefined;
	from: Step | undefined;
}

/**
 * Where in `value` a string holds U+0000 (a field's value or its name), as the keys leading there; undefined when none does.
 * Walked with a stack of its own, not by recursion: a JSON body within the size limit can nest deeper than the call stack.
 */
function nulIn(value: unknown): { keys: (string | number)[]; inName: boolean } | undefined {
	const pending: Step[] = [{ value, key: undefined, from: undefined }];
	for (let step = pending.pop(); step !== undefined; step = pending.pop()) {
		if (typeof step.value === 'string') {
			if (step.value.includes('\0')) return { keys: keysOf(step), inName: false };
		} else if (typeof step.value === 'object' && step.value !== null) {
			const entries = Object.entries(step.value);
			if (entries.some(([key]) => key.includes('\0'))) return { keys: keysOf(step), inName: true };
			const isArray = Array.isArray(step.value);
			// Last first, so the first field in the document is looked at first.
			for (let i = entries.length - 1; i >= 0; i--)
				pending.push({ value: entries[i][1], key: isArray ? Number(entries[i][0]) : entries[i][0], from: step });
		}
	}
	return undefined;
}

function keysOf(step: Step): (string | number)[] {
	const keys: (string | number)[] = [];
	for (let at: Step | undefined = step; at?.key !== undefined; at = at.from) keys.push(at.key);
	return keys.reverse();
}
