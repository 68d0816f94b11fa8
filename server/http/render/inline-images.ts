import type { AttachmentMeta } from '../../schemas/message';
import { contentIdOf } from './inline-style';

/**
 * A body shows the images of its own message that it names with `cid:` (RFC 2392) as `data:` URLs: the frame that shows
 * it cannot send the API key an attachment download needs, and its Content-Security-Policy lets images come from `data:`
 * only. Each image up to this size, and this much in all per body; a larger one is left out (the attachment list has it).
 */
export const INLINE_IMAGE_MAX_BYTES = 2 * 1024 * 1024;
export const INLINE_IMAGES_MAX_BYTES = 8 * 1024 * 1024;

/** Types a browser shows as an image (SVG included: in an image, its scripts never run). */
const IMAGE_TYPES = new Set([
	'image/png',
	'image/jpeg',
	'image/gif',
	'image/webp',
	'image/avif',
	'image/bmp',
	'image/svg+xml',
	'image/x-icon',
	'image/vnd.microsoft.icon',
]);

const CID_REFERENCE = /cid:([^\s"'()<>]+)/gi;

/** The Content-IDs (lower-cased, without angle brackets) that the HTML names in cid: URLs. */
export function referencedContentIds(html: string): Set<string> {
	const ids = new Set<string>();
	for (const [url] of html.matchAll(CID_REFERENCE)) {
		const id = contentIdOf(url);
		if (id) ids.add(id.toLowerCase());
	}
	return ids;
}

const bareContentId = (contentId: string) =>
	contentId
		.trim()
		.replace(/^<(.*)>$/, '$1')
		.toLowerCase();
const mediaType = (contentType: string) => contentType.split(';')[0].trim().toLowerCase();

/** The `data:` URLs of the message's images that the HTML names, by lower-cased Content-ID, within the sizes above. */
export async function inlineImages(
	html: string,
	attachments: AttachmentMeta[],
	read: (attachment: AttachmentMeta) => Promise<Buffer>,
): Promise<Map<string, string>> {
	const wanted = referencedContentIds(html);
	const images = new Map<string, string>();
	let total = 0;
	for (const attachment of attachments) {
		if (wanted.size === 0) break;
		const id = attachment.contentId && bareContentId(attachment.contentId);
		const type = mediaType(attachment.contentType);
		if (!id || !wanted.has(id) || !IMAGE_TYPES.has(type)) continue;
		wanted.delete(id);
		if (attachment.length > INLINE_IMAGE_MAX_BYTES || total + attachment.length > INLINE_IMAGES_MAX_BYTES) continue;
		total += attachment.length;
		images.set(id, `data:${type};base64,${(await read(attachment)).toString('base64')}`);
	}
	return images;
}
