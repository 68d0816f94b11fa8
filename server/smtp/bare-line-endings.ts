import { open } from 'node:fs/promises';

const CR = 0x0d;
const LF = 0x0a;

/**
 * Finds line endings that are not CRLF: a bare LF or a bare CR. Servers that take either for a
 * line ending also see `<LF>.<CR><LF>` or `<CR>.<CR>` as the end of DATA, which is how a second
 * message is smuggled past a server that does not (SMTP smuggling). Fed piece by piece, so a
 * spooled message is checked without holding it whole.
 */
export class BareLineEndingScan {
	private bareLf = false;
	private bareCr = false;
	/** The last byte of the previous piece (-1 before the first). */
	private previous = -1;

	push(piece: Uint8Array): this {
		if (piece.length === 0) return this;
		const bytes = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
		if (this.previous === CR && bytes[0] !== LF) this.bareCr = true;
		if (!this.bareLf) {
			for (let lf = bytes.indexOf(LF); lf !== -1; lf = bytes.indexOf(LF, lf + 1)) {
				if ((lf === 0 ? this.previous : bytes[lf - 1]) !== CR) {
					this.bareLf = true;
					break;
				}
			}
		}
		if (!this.bareCr) {
			// A CR ending the piece is judged by the first byte of the next one.
			for (let cr = bytes.indexOf(CR); cr !== -1 && cr + 1 < bytes.length; cr = bytes.indexOf(CR, cr + 1)) {
				if (bytes[cr + 1] !== LF) {
					this.bareCr = true;
					break;
				}
			}
		}
		this.previous = bytes[bytes.length - 1];
		return this;
	}

	/** The verdict once every piece is in: a bare LF anywhere wins over a bare CR. */
	result(): 'LF' | 'CR' | null {
		if (this.bareLf) return 'LF';
		return this.bareCr || this.previous === CR ? 'CR' : null;
	}
}

export function bareLineEnding(raw: Uint8Array): 'LF' | 'CR' | null {
	return new BareLineEndingScan().push(raw).result();
}

/** The same check over a spooled message, read a piece at a time. */
export async function bareLineEndingInFile(path: string): Promise<'LF' | 'CR' | null> {
	const scan = new BareLineEndingScan();
	// One buffer, refilled: a large message leaves no garbage behind.
	const piece = Buffer.allocUnsafe(1024 * 1024);
	const file = await open(path, 'r');
	try {
		for (
			let { bytesRead } = await file.read(piece, 0, piece.length);
			bytesRead > 0;
			{ bytesRead } = await file.read(piece, 0, piece.length)
		) {
			scan.push(piece.subarray(0, bytesRead));
		}
	} finally {
		await file.close();
	}
	return scan.result();
}
