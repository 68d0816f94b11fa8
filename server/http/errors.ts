import { STATUS_CODES } from 'node:http';

/** An error the API reports to its caller as `{ error, message }` with this status. */
export class HttpError extends Error {
	constructor(
		readonly statusCode: number,
		message: string,
	) {
		super(message);
	}

	get error(): string {
		return STATUS_CODES[this.statusCode] ?? 'Error';
	}
}

export const badRequest = (message: string) => new HttpError(400, message);
export const unauthorized = (message: string) => new HttpError(401, message);
export const forbidden = (message: string) => new HttpError(403, message);
export const notFound = (message: string) => new HttpError(404, message);

export function errorBody(statusCode: number, message: string) {
	return { error: STATUS_CODES[statusCode] ?? 'Error', message };
}
