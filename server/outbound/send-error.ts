/** A send refused before anything was recorded or charged; `statusCode` is the HTTP status to answer. */
export class SendError extends Error {
	constructor(
		readonly statusCode: 400 | 402 | 403 | 404 | 413 | 422,
		message: string,
		/** The field of the send request at fault, as the request writes it (`to`, `attachments[0].content`). */
		readonly field?: string,
	) {
		super(message);
	}
}
