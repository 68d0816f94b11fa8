import fc from 'fast-check';

/**
 * `input` cut at `cuts` (positions taken modulo its length + 1, so 0 and the end can come up), in order: empty pieces
 * included, and views into `input` rather than copies where it has them (subarray), so a piece may start anywhere in
 * its buffer.
 */
export function cut<T extends { length: number; slice(start: number, end?: number): T; subarray?(start: number, end?: number): T }>(
	input: T,
	cuts: number[],
): T[] {
	const ends = [...new Set(cuts.map((position) => position % (input.length + 1)))].sort((a, b) => a - b);
	const pieces: T[] = [];
	let start = 0;
	for (const end of [...ends, input.length]) {
		pieces.push(input.subarray ? input.subarray(start, end) : input.slice(start, end));
		start = end;
	}
	return pieces;
}

/** Where to cut: up to `maxLength` positions, for `cut`. */
export const cuts = (maxLength = 8) => fc.array(fc.nat(), { maxLength });

/** Text with what makes cutting it hard: CR, LF, surrogate pairs, lone surrogates, multi-byte characters, quotes and controls. */
export const hardText = fc
	.array(
		fc.oneof(
			fc.constantFrom('\r', '\n', '\r\n', '😀', '\ud83d', '\ude00', 'é', '€', '"', '\\', '\u0000', '\u2028'),
			fc.string({ maxLength: 6 }),
		),
		{ maxLength: 40 },
	)
	.map((parts) => parts.join(''));

/** Text with links, whitespace (U+FEFF and U+3000 too), characters outside the BMP and runs too long to scan. */
export const linkText = fc
	.array(
		fc.oneof(
			fc.constantFrom(
				'https://example.org/a',
				'http://b.example/p?q=1&r=😀',
				'ftp://f.example/x',
				'https://example.org/a.',
				'(https://c.example)',
				'mailto:m@x.example',
			),
			fc.constantFrom(' ', '\n', '\r\n', '\t', '\u3000', '\ufeff', '  \n\n', 'Zürich', '😀', '“q”', 'word', '://', 'https:'),
			fc.constantFrom('x'.repeat(4100), `${'😀'.repeat(2050)}https://long.example/`, `${'y'.repeat(4090)}https://edge.example/`),
			fc.string({ maxLength: 6 }),
		),
		{ maxLength: 40 },
	)
	.map((parts) => parts.join(''));

/** Every piece an iterable gives, read or awaited in turn. */
export async function collect<T>(pieces: Iterable<T> | AsyncIterable<T>): Promise<T[]> {
	const all: T[] = [];
	for await (const piece of pieces) all.push(piece);
	return all;
}

/** The pieces of a text, joined. */
export const joinedText = async (pieces: Iterable<string> | AsyncIterable<string>) => (await collect(pieces)).join('');
