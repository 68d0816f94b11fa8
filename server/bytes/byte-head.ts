/**
 * The first `limit` bytes of a body that streams past, and the size of the whole: what a log keeps of a body without
 * holding all of it. The head is copied as pieces go by (never more than `limit` bytes held); the rest is only counted.
 */
export class ByteHead {
	private readonly pieces: Buffer[] = [];
	private kept = 0;
	private total = 0;

	constructor(private readonly limit: number) {}

	add(piece: Buffer): void {
		this.total += piece.length;
		if (this.kept >= this.limit) return;
		const part = piece.subarray(0, this.limit - this.kept);
		// A copy: the piece's buffer may be a slice of a larger one that would otherwise be kept alive.
		this.pieces.push(Buffer.from(part));
		this.kept += part.length;
	}

	/** Whether more came than is kept: the rest of a body need not be read. */
	get overflowed(): boolean {
		return this.total > this.limit;
	}

	/** The bytes kept, without a UTF-8 character the cut split (so it decodes cleanly), and the whole size. */
	result(): { head: Buffer; bytes: number } {
		const head = Buffer.concat(this.pieces, this.kept);
		return { head: this.total > this.kept ? head.subarray(0, completeUtf8Length(head)) : head, bytes: this.total };
	}
}

/** The length of `bytes` without a UTF-8 sequence its end cuts short. */
function completeUtf8Length(bytes: Buffer): number {
	// A sequence is at most 4 bytes: look back at most 3 for its lead byte.
	for (let back = 1; back <= Math.min(3, bytes.length); back++) {
		const byte = bytes[bytes.length - back];
		if ((byte & 0xc0) === 0x80) continue; // a continuation byte: keep looking for the lead
		const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
		return needed > back ? bytes.length - back : bytes.length;
	}
	return bytes.length;
}
