/**
 * Which attachments the HTML shows inline. An attachment is inline only when the HTML refers to it with a `cid:` URL
 * naming its binary property or its file name (`<img src="cid:logo">` or `<img src="cid:logo.png">`); it then gets that
 * name as its Content-ID and goes in multipart/related. Every other attachment stays a plain attachment: giving each a
 * Content-ID would make mail clients show unreferenced images inline, or hide them.
 */

/**
 * The Content-IDs the HTML refers to: what follows each `cid:`, as written. A Content-ID is printable ASCII without
 * spaces, so a file name with a space in it cannot be one: such a file is referred to by its property name.
 */
export function contentIdsReferenced(html: string | undefined): Set<string> {
	return new Set([...(html ?? '').matchAll(/\bcid:([^\s"'<>()]+)/gi)].map(([, id]) => id));
}

/** The Content-ID of an attachment: its property name or file name when the HTML refers to it, else none. */
export function inlineContentId(referenced: Set<string>, property: string, fileName: string | undefined): string | undefined {
	if (referenced.has(property)) return property;
	if (fileName && referenced.has(fileName)) return fileName;
	return undefined;
}
