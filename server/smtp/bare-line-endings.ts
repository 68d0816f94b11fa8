const CR = 0x0d;
const LF = 0x0a;

/**
 * Finds the first line ending that is not CRLF: a bare LF or a bare CR. Servers that take
 * either for a line ending also see `<LF>.<CR><LF>` or `<CR>.<CR>` as the end of DATA, which is
 * how a second message is smuggled past a server that does not (SMTP smuggling).
 */
export function bareLineEnding(raw: Uint8Array): 'LF' | 'CR' | null {
	const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
	for (let lf = bytes.indexOf(LF); lf !== -1; lf = bytes.indexOf(LF, lf + 1)) {
		if (lf === 0 || bytes[lf - 1] !== CR) return 'LF';
	}
	for (let cr = bytes.indexOf(CR); cr !== -1; cr = bytes.indexOf(CR, cr + 1)) {
		if (bytes[cr + 1] !== LF) return 'CR';
	}
	return null;
}
