/**
 * API error messages in the node's words. A 400 about one field of a request body names it as the API writes it
 * (`to "x" is not an email address`, with `field: "to"`); the node's user knows the parameter, not the body, so the
 * message is made to start with the parameter's display name instead (`To: "x" is not an email address`).
 */

/** API body fields (a top-level name, or a path such as `filter.from`) and the display names of the parameters that fill them. */
export type FieldNames = Record<string, string>;

/** The top-level name of a field path: `attachments` of `attachments[0].content`, `headers` of `headers.X-Campaign`. */
const topName = (field: string) => /^[^.[]*/.exec(field)![0];

/** `message`, about the body field `field`, starting with the display name of the parameter behind it; as it is when none is. */
export function inNodeWords(message: string, field: string | undefined, names: FieldNames | undefined): string {
	if (!field || !names) return message;
	const top = topName(field);
	const name = names[field] ?? names[top];
	if (!name) return message;
	// What the rest of the path adds to the parameter's name: which header, which attachment.
	const detail = names[field] || field === top ? '' : ` (${field.slice(top.length).replace(/^\./, '')})`;
	const prefix = [field, top].find((written) => message.startsWith(`${written} `));
	if (!prefix) return `${name}${detail}: ${message}`;
	const rest = message.slice(prefix.length + 1);
	const shown = prefix === field ? `${name}${detail}` : name;
	// A quoted value follows a colon: `To: "x" is not ...`; a sentence goes on: `To must name at least one recipient`.
	return rest.startsWith('"') ? `${shown}: ${rest}` : `${shown} ${rest}`;
}
