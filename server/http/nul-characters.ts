import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from './errors';

/**
 * The API takes no text with U+0000 in it, in a path parameter, the query or the body: PostgreSQL text cannot hold it, so
 * a label, an address setting or a subject with one would read back otherwise on one engine than on the other. Refused with
 * 400 before any route validates or acts, naming the field as validation messages do (`body/subject`, `params/label`).
 */
export function refuseNulCharacters(app: FastifyInstance): void {
	app.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
		const parts: [string, unknown][] = [
			['params', request.params],
			['querystring', request.query],
			['body', request.body],
		];
		for (const [part, value] of parts) {
			const field = fieldWithNul(value, part);
			if (field !== undefined) return done(badRequest(`${field} contains a NUL character (U+0000), which the API does not take`));
		}
		done();
	});
}

/** A value met in the walk of a request part, with the way to it: its key and the step it was reached from. */
interface Step {
	value: unknown;
	key: string;
	from: Step | undefined;
}

/**
 * Where in `value` a string holds U+0000 (a field's value or its name), as a path from `at`; undefined when none does.
 * Walked with a stack of its own, not by recursion: a JSON body within the size limit can nest deeper than the call stack.
 */
function fieldWithNul(value: unknown, at: string): string | undefined {
	const pending: Step[] = [{ value, key: at, from: undefined }];
	for (let step = pending.pop(); step !== undefined; step = pending.pop()) {
		if (typeof step.value === 'string') {
			if (step.value.includes('\0')) return pathOf(step);
		} else if (typeof step.value === 'object' && step.value !== null) {
			const entries = Object.entries(step.value);
			if (entries.some(([key]) => key.includes('\0'))) return pathOf(step);
			// Last first, so the first field in the document is looked at first.
			for (let i = entries.length - 1; i >= 0; i--) pending.push({ value: entries[i][1], key: entries[i][0], from: step });
		}
	}
	return undefined;
}

function pathOf(step: Step): string {
	const keys: string[] = [];
	for (let at: Step | undefined = step; at !== undefined; at = at.from) keys.push(at.key);
	return keys.reverse().join('/');
}
