/** Bytes as base64, as the API takes attachments; in slices, since spreading a large array into one call overflows the stack. */
export function base64Of(bytes: Uint8Array): string {
	let binary = '';
	for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
	return btoa(binary);
}

export const blobBase64 = async (blob: Blob): Promise<string> => base64Of(new Uint8Array(await blob.arrayBuffer()));
