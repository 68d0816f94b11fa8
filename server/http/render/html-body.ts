import sanitizeHtml from 'sanitize-html';
import type { AnyIterable } from '../../bytes/text-pieces';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

const TEXT_PAGE_START = '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><pre style="white-space: pre-wrap">';
const TEXT_PAGE_END = '</pre></body></html>';
const escaped = (text: string) => text.replace(/[&<>"]/g, (char) => HTML_ESCAPES[char]);

/** A minimal HTML page showing a text body as it is, for mail without an HTML part. */
export function htmlFromText(text: string): string {
	return TEXT_PAGE_START + escaped(text) + TEXT_PAGE_END;
}

/** htmlFromText on a text read in pieces, a piece at a time (each character escapes alone, so the pieces' cuts do not matter). */
export async function* htmlFromTextPieces(text: AnyIterable<string>): AsyncGenerator<string> {
	yield TEXT_PAGE_START;
	for await (const piece of text) yield escaped(piece);
	yield TEXT_PAGE_END;
}

/**
 * Mail HTML made safe to show: sanitize-html's default allow-list (no scripts, styles, forms,
 * frames or event handlers), images only from data: URLs unless remote ones are allowed
 * (a remote image tells the sender the mail was opened), links opened outside the page.
 */
export function sanitizeMailHtml(html: string, { remoteImages }: { remoteImages: boolean }): string {
	return sanitizeHtml(html, {
		allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img'],
		allowedAttributes: {
			...sanitizeHtml.defaults.allowedAttributes,
			a: ['href', 'name', 'target', 'rel'],
			img: ['src', 'alt', 'title', 'width', 'height'],
			td: ['colspan', 'rowspan', 'align', 'valign'],
			th: ['colspan', 'rowspan', 'align', 'valign'],
		},
		allowedSchemes: ['http', 'https', 'mailto'],
		allowedSchemesByTag: { img: remoteImages ? ['data', 'http', 'https'] : ['data'] },
		transformTags: { a: sanitizeHtml.simpleTransform('a', { target: '_blank', rel: 'noopener noreferrer nofollow' }) },
		exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
	});
}

/** Content-Security-Policy for the sanitised body: a second guard should anything slip through. */
export function sanitizedBodyPolicy({ remoteImages }: { remoteImages: boolean }): string {
	return `default-src 'none'; img-src data:${remoteImages ? ' http: https:' : ''}; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'`;
}
