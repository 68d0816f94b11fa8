// Types for the MIME codecs mailparser itself decodes with (the packages ship none).
declare module 'libqp' {
	export function decode(input: Buffer | string): Buffer;
}
declare module 'libbase64' {
	export function decode(input: string): Buffer;
}
