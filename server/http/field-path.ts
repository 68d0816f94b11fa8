/**
 * A field of a request as its sender writes it: `webhook`, `attachments[0].content`, `headers.X-Note`. Messages name
 * fields so, and a 400 about one field carries it so in `field`, for a form to mark the input it came from.
 */
export function fieldPath(keys: readonly (string | number)[]): string {
	return keys.map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? key : `.${key}`)).join('');
}

/** The keys of an Ajv instance path (a JSON pointer: `/attachments/0/content`); a segment of digits is taken as an array index. */
export function keysOfPointer(pointer: string): (string | number)[] {
	if (pointer === '') return [];
	return pointer
		.slice(1)
		.split('/')
		.map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
		.map((key) => (/^(0|[1-9]\d*)$/.test(key) ? Number(key) : key));
}

/** Path parameters whose name is not the word for what they are. */
const PARAMETER_WORDS: Record<string, string> = { email: 'email address', domain: 'domain name' };

/** What a path parameter is, in words: `messageId` is a "message id", `email` an "email address". */
export function pathParameterWords(name: string): string {
	return PARAMETER_WORDS[name] ?? name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}
