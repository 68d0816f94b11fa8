import { findTextLinks } from './links';

/**
 * Renders text the way the text endpoint serves it: each link replaced by its number in
 * brackets ("[1]"), the same URL keeping its number, and the numbered list at the end.
 */
export function numberLinks(text: string): string {
	const links = findTextLinks(text);
	if (links.length === 0) return text;
	const numbers = new Map<string, number>();
	let out = '';
	let cursor = 0;
	for (const link of links) {
		if (!numbers.has(link.url)) numbers.set(link.url, numbers.size + 1);
		out += `${text.slice(cursor, link.index)}[${numbers.get(link.url)}]`;
		cursor = link.lastIndex;
	}
	out += text.slice(cursor);
	const list = [...numbers].map(([url, n]) => `[${n}] ${url}`).join('\n');
	// Three blank lines before the list, as Mailsac's text endpoint does.
	return `${out.trimEnd()}\n\n\n\n${list}\n`;
}
