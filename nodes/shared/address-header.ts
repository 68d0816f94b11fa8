/** An address as the API gives them in `from`, `to` and `cc`. */
export interface MailAddress {
	address: string;
	name: string;
}

const ENCODED_WORD = /=\?([^?\s]+)\?([BbQq])\?([^?\s]*)\?=/g;

/** Decodes the RFC 2047 encoded words of a header value (`=?UTF-8?Q?Gr=C3=BC=C3=9Fe?=` is `Grüße`); others stay as sent. */
export function decodeEncodedWords(value: string): string {
	// Whitespace between two encoded words is not part of the text (RFC 2047, 6.2).
	const joined = value.replace(/(\?=)\s+(?==\?)/g, '$1');
	return joined.replace(ENCODED_WORD, (word, charset: string, encoding: string, text: string) => {
		try {
			const bytes =
				encoding.toUpperCase() === 'B'
					? Buffer.from(text, 'base64')
					: Buffer.from(
							text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
							'latin1',
						);
			return new TextDecoder(charset.split('*')[0]).decode(bytes);
		} catch {
			return word;
		}
	});
}

/** Splits an address list at the commas outside quotes, comments and angle brackets. */
function splitAddresses(value: string): string[] {
	const parts: string[] = [];
	let current = '';
	let quoted = false;
	let depth = 0;
	for (let i = 0; i < value.length; i++) {
		const char = value[i];
		if (quoted && char === '\\') {
			current += char + (value[++i] ?? '');
			continue;
		}
		if (char === '"') quoted = !quoted;
		else if (!quoted && (char === '<' || char === '(')) depth++;
		else if (!quoted && (char === '>' || char === ')')) depth = Math.max(0, depth - 1);
		if (char === ',' && !quoted && depth === 0) {
			parts.push(current);
			current = '';
		} else current += char;
	}
	return [...parts, current].map((part) => part.trim()).filter(Boolean);
}

const unquoted = (name: string) =>
	name.startsWith('"') && name.endsWith('"') && name.length > 1 ? name.slice(1, -1).replace(/\\(.)/g, '$1') : name;

/** `Ann Lee <ann@example.org>, bob@example.org` as the API's `[{address, name}]`; encoded words decoded, groups flattened. */
export function parseAddressList(value: string): MailAddress[] {
	return splitAddresses(decodeEncodedWords(value).replace(/^[^",<]*:|;\s*$/g, '')).map((part) => {
		const angle = /^(.*?)<([^<>]*)>\s*(?:\(.*\))?$/.exec(part);
		if (!angle) return { address: part.replace(/\s*\(.*\)$/, ''), name: '' };
		return { address: angle[2].trim(), name: unquoted(angle[1].trim()) };
	});
}
