// Types for the MIME codecs mailparser itself decodes with (the packages ship none).
declare module 'libqp' {
	import type { Transform } from 'node:stream';
	export function decode(input: Buffer | string): Buffer;
	/** The stream decoder mailsplit gives quoted-printable parts. */
	export class Decoder extends Transform {}
}
declare module 'libbase64' {
	export function decode(input: string): Buffer;
}
