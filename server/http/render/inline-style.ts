import { parse, type Declaration } from 'postcss';

/**
 * The `style` attribute of mail HTML, kept but made unable to reach the network behind the user's back. Mail is styled
 * inline, so a preview without it is not what the sender sent; but CSS can load images (a read receipt, or with attribute
 * selectors a way to leak the page), so every way it names a URL is checked:
 *
 * - each declaration is parsed with postcss (the parser sanitize-html uses) and written out again as `prop:value`, so what
 *   the browser reads is what was checked;
 * - a value with a backslash is dropped: CSS escapes could spell `url(` or `expression(` in a form no check sees;
 * - functions are allowed by name (colours, maths, gradients, transforms); `url()` only to a `data:` image, a `cid:`
 *   image of the message (replaced by its `data:` URL), or, once the user allows remote images, an http(s) URL; anything
 *   else (`expression()`, `image-set()`, `var()`…) drops the declaration;
 * - custom properties and the old script-running properties (`behavior`, `-moz-binding`) are dropped.
 *
 * A declaration that fails is dropped alone; the rest of the attribute stays. The sanitised page's Content-Security-Policy
 * is the second guard: it lets images come from `data:` only (and http(s) with remote images on), and nothing else load.
 */

/** What a style may show: the inline images of the message, and whether remote images are allowed. */
export interface StyleImages {
	remoteImages: boolean;
	/** `data:` URLs of the message's inline parts, by Content-ID (without angle brackets). */
	inlineImages: ReadonlyMap<string, string>;
	/** Called for each remote image left out, so the reader can be told some were blocked. */
	blocked: () => void;
}

const ALLOWED_FUNCTIONS = new Set([
	...['rgb', 'rgba', 'hsl', 'hsla', 'hwb', 'lab', 'lch', 'oklab', 'oklch', 'color', 'color-mix'],
	...['calc', 'min', 'max', 'clamp'],
	...['linear-gradient', 'radial-gradient', 'conic-gradient', 'repeating-linear-gradient', 'repeating-radial-gradient'],
	...['translate', 'translatex', 'translatey', 'scale', 'scalex', 'scaley', 'rotate', 'skew', 'skewx', 'skewy', 'matrix'],
	...['cubic-bezier', 'steps', 'rect', 'inset', 'circle', 'ellipse', 'counter', 'counters'],
]);
/** Old gradients are written with a browser's prefix: they are the function without it. */
const VENDOR_PREFIX = /^-(webkit|moz|ms|o)-/;
const REFUSED_PROPERTIES = new Set(['behavior', '-moz-binding', 'binding', '-ms-behavior']);
const PROPERTY = /^-?[a-z][a-z0-9-]*$/;
const FUNCTION_CALL = /([a-z-][a-z0-9-]*)\s*\(/gi;
/** `url(x)`, `url('x')` or `url("x")`: backslashes are refused before this is used, so a quote cannot be escaped. */
const URL_CALL = /url\(\s*(?:"([^"]*)"|'([^']*)'|([^'"()\s]*))\s*\)/gi;
/** A data: URL that is an image and nothing else (no quotes or parentheses to break out of url()). */
const DATA_IMAGE = /^data:image\/[a-z0-9.+-]+(;[a-z0-9=.+-]+)*(;base64)?,[a-z0-9+/=%._~-]*$/i;

/** The content id a `cid:` URL names (RFC 2392: percent-encoded, without angle brackets). */
export function contentIdOf(cidUrl: string): string | null {
	try {
		return decodeURIComponent(cidUrl.slice(4)).trim();
	} catch {
		return null;
	}
}

/** Characters that could end the url() a source is written into. */
const BREAKS_OUT = /["'()\s\\<>]/;

/** The `data:` URL of the inline image a `cid:` URL names, or null when the message has none it may show. */
export function inlineImageFor(cidUrl: string, images: Pick<StyleImages, 'inlineImages'>): string | null {
	const id = contentIdOf(cidUrl.trim());
	return (id !== null && images.inlineImages.get(id.toLowerCase())) || null;
}

/** What a URL in a style may become, or null when it may not be shown. */
function cssImageSource(url: string, images: StyleImages): string | null {
	const trimmed = url.trim();
	if (/^cid:/i.test(trimmed)) return inlineImageFor(trimmed, images);
	if (BREAKS_OUT.test(trimmed)) return null;
	if (DATA_IMAGE.test(trimmed)) return trimmed;
	if (/^https?:\/\//i.test(trimmed)) {
		if (images.remoteImages) return trimmed;
		images.blocked();
	}
	return null;
}

/** The value with each url() replaced by what it may show, or null when one may not be shown or another function is refused. */
function checkedValue(value: string, images: StyleImages): string | null {
	if (value.includes('\\')) return null;
	for (const [, name] of value.matchAll(FUNCTION_CALL)) {
		const bare = name.toLowerCase().replace(VENDOR_PREFIX, '');
		if (bare !== 'url' && !ALLOWED_FUNCTIONS.has(bare)) return null;
	}
	let refused = false;
	const replaced = value.replace(URL_CALL, (_call, double?: string, single?: string, bare?: string) => {
		const source = cssImageSource(double ?? single ?? bare ?? '', images);
		if (source === null) refused = true;
		return `url("${source ?? ''}")`;
	});
	// A url( the pattern did not take whole (an unbalanced one) is refused too.
	if (refused || /url\(/i.test(replaced.replace(URL_CALL, ''))) return null;
	return replaced;
}

function safeDeclaration(declaration: Declaration, images: StyleImages): string | null {
	const property = declaration.prop.toLowerCase();
	if (!PROPERTY.test(property) || REFUSED_PROPERTIES.has(property)) return null;
	const value = checkedValue(declaration.value.trim(), images);
	if (value === null || value === '') return null;
	return `${property}:${value}${declaration.important ? ' !important' : ''}`;
}

/** The declarations of a style attribute that pass, as `prop:value;…`; '' when none does or the attribute does not parse. */
export function safeInlineStyle(style: string, images: StyleImages): string {
	let rule;
	try {
		// Parsed as the body of one rule, as browsers read the attribute; braces in it cannot open another rule.
		if (/[{}]/.test(style)) return '';
		rule = parse(`x{${style}}`).first;
	} catch {
		return '';
	}
	if (rule?.type !== 'rule') return '';
	const kept: string[] = [];
	rule.each((node) => {
		if (node.type !== 'decl') return;
		const declaration = safeDeclaration(node, images);
		if (declaration !== null) kept.push(declaration);
	});
	return kept.join(';');
}
