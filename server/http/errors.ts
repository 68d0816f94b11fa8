import { STATUS_CODES } from 'node:http';

/** An error the API reports to its caller as `{ error, message }` with this status, and `field` when it is about one field. */
export class HttpError extends Error {
	constructor(
		readonly statusCode: number,
		message: string,
		/** The body field or query parameter at fault, as the request writes it (see fieldPath). */
		readonly field?: string,
	) {
		super(message);
	}

	get error(): string {
		return STATUS_CODES[this.statusCode] ?? 'Error';
	}
}

export const badRequest = (message: string, field?: string) => new HttpError(400, message, field);
export const unauthorized = (message: string) => new HttpError(401, message);
export const forbidden = (message: string) => new HttpError(403, message);
export const notFound = (message: string) => new HttpError(404, message);

export function errorBody(statusCode: number, message: string, field?: string) {
	return { error: STATUS_CODES[statusCode] ?? 'Error', message, ...(field === undefined ? {} : { field }) };
}
