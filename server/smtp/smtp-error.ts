/** An error that smtp-server answers with `responseCode` and `message` (which starts with the enhanced status code). */
export function smtpError(responseCode: number, message: string): Error & { responseCode: number } {
	return Object.assign(new Error(message), { responseCode });
}
