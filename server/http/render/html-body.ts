import sanitizeHtml from 'sanitize-html';
import type { AnyIterable } from '../../bytes/text-pieces';
import { inlineImageFor, safeInlineStyle, type StyleImages } from './inline-style';

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

/** How mail HTML is rendered: remote images or not, and the message's inline images by Content-ID (see inline-images.ts). */
export interface MailHtmlOptions {
	remoteImages: boolean;
	/** `data:` URLs of the message's inline images, by lower-cased Content-ID (without angle brackets). */
	inlineImages?: ReadonlyMap<string, string>;
}

/** Mail HTML made safe to show, and how many remote images were left out (for a "show images" offer). */
export interface SanitizedHtml {
	html: string;
	remoteImagesBlocked: number;
}

/** Presentational attributes mail layouts rely on (tables laid out with them); none of them can load anything. */
const LAYOUT_ATTRIBUTES = ['align', 'valign', 'width', 'height', 'bgcolor', 'border', 'cellpadding', 'cellspacing', 'dir', 'title'];

/**
 * Mail HTML made safe to show: sanitize-html's allow-list (no scripts, style sheets, forms, frames or event handlers)
 * plus `<font>` and `<center>`, the presentational attributes of mail layouts and inline `style` attributes (filtered by
 * safeInlineStyle: no URL but images the reader may see). Images: `data:` URLs, the message's own inline parts (`cid:`,
 * replaced by their `data:` URLs), and remote ones only when allowed (a remote image tells the sender the mail was
 * opened). Links open outside the page.
 */
export function sanitizeMailHtml(html: string, options: MailHtmlOptions): SanitizedHtml {
	const { remoteImages } = options;
	let remoteImagesBlocked = 0;
	const images: StyleImages = {
		remoteImages,
		inlineImages: options.inlineImages ?? new Map(),
		blocked: () => remoteImagesBlocked++,
	};
	const withSafeStyle = (tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag => {
		if (attribs.style !== undefined) {
			const style = safeInlineStyle(attribs.style, images);
			if (style) attribs.style = style;
			else delete attribs.style;
		}
		return { tagName, attribs };
	};
	const sanitized = sanitizeHtml(html, {
		allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'font', 'center'],
		allowedAttributes: {
			...sanitizeHtml.defaults.allowedAttributes,
			'*': ['style', ...LAYOUT_ATTRIBUTES],
			a: ['href', 'name', 'target', 'rel'],
			img: ['src', 'alt'],
			td: ['colspan', 'rowspan'],
			th: ['colspan', 'rowspan'],
			font: ['color', 'face', 'size'],
		},
		// The style attribute is filtered by safeInlineStyle, which writes out only what it parsed and checked.
		parseStyleAttributes: false,
		allowedSchemes: ['http', 'https', 'mailto'],
		allowedSchemesByTag: { img: remoteImages ? ['data', 'http', 'https'] : ['data'] },
		// sanitize-html runs a tag's own transform, then the one for every tag.
		transformTags: {
			'*': withSafeStyle,
			a: sanitizeHtml.simpleTransform('a', { target: '_blank', rel: 'noopener noreferrer nofollow' }),
			img: (tagName, attribs) => {
				const src = (attribs.src ?? '').trim();
				if (/^cid:/i.test(src)) attribs.src = inlineImageFor(src, images) ?? '';
				// Anything else but a data: URL a browser fetches from somewhere: http(s), and the spellings without a scheme that
				// it resolves to another host (`//host/p`, `/\host/p`, `\\host\p`). Mail has no base to be relative to.
				else if (!remoteImages && !/^data:/i.test(src)) {
					remoteImagesBlocked++;
					attribs.src = '';
				}
				return { tagName, attribs };
			},
		},
		exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
	});
	return { html: sanitized, remoteImagesBlocked };
}

/**
 * Content-Security-Policy for the sanitised body: a second guard should anything slip through. Images only from data:
 * (the inline ones are data: URLs too) unless remote ones are allowed; styles only inline; nothing else loads.
 */
export function sanitizedBodyPolicy({ remoteImages }: { remoteImages: boolean }): string {
	return `default-src 'none'; img-src data:${remoteImages ? ' http: https:' : ''}; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'`;
}
