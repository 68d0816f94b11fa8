import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INode,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { jsonParse, NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { inNodeWords, type FieldNames } from './field-names';

/** The functions objects our requests run in: the action node, the trigger's webhook methods and its webhook, the editor's lists. */
export type MailroomContext = IExecuteFunctions | IHookFunctions | IWebhookFunctions | ILoadOptionsFunctions;

export interface RequestOptions {
	body?: IDataObject;
	qs?: IDataObject;
	/** The response is plain text, not JSON (GET /api/text/...). */
	text?: boolean;
	/** The response is a file: resolve with its bytes (attachments). */
	binary?: boolean;
	/** Milliseconds to wait for the answer; by default as long as it takes. */
	timeout?: number;
	itemIndex?: number;
	/** The parameters that fill the body's fields, by field: an error about a field names the parameter instead. */
	fieldNames?: FieldNames;
}

/** Forwarding record of an address (spec 2.2). */
export interface AddressRecord extends IDataObject {
	_id: string;
	owner: string;
	webhook: string | null;
}

/** An address as a path segment: the at-sign and anything else special must be encoded. */
export const addressPath = (email: string) => encodeURIComponent(email.trim());

/**
 * The server's address from the credential's Base URL: people paste it with a trailing slash, or with the /api the
 * routes start with (https://mail.example.com/api/), and either would make every path miss. The credential's test request
 * does the same in its own expression.
 */
export const apiBaseUrl = (baseUrl: string) => baseUrl.trim().replace(/(\/api)?\/*$/i, '');

/** The signal that aborts when the execution is stopped; only an action node's execution has one. */
const cancelSignalOf = (context: MailroomContext) =>
	'getExecutionCancelSignal' in context ? context.getExecutionCancelSignal() : undefined;

/** A 429 (rate limit) is retried after its Retry-After: at most this many times for one request... */
export const RATE_LIMIT_RETRIES = 3;
/** ...and waiting at most this long in all (the server's window is a minute: a longer wait fails at once, saying so). */
export const RATE_LIMIT_WAIT_MS = 30_000;
/** The wait when a 429 gives no Retry-After. */
const DEFAULT_RETRY_AFTER_MS = 1000;

/** Milliseconds a Retry-After header asks to wait (seconds, or an HTTP date); undefined when it is absent or unreadable. */
export function retryAfterMs(headers: IDataObject | undefined, now = Date.now()): number | undefined {
	const value = headers?.['retry-after'];
	const text = Array.isArray(value) ? String(value[0]) : typeof value === 'string' || typeof value === 'number' ? String(value) : '';
	if (/^\s*\d+\s*$/.test(text)) return Number(text) * 1000;
	const date = Date.parse(text);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Calls the Mailroom REST API with the mailroomApi credential (its own `authenticate` definition
 * puts the key in the Service-Key header). An error answer becomes a NodeApiError whose message is
 * the server's `message` and whose httpCode is the HTTP status. A 429 (the API's per-key rate limit) is
 * retried after the wait its Retry-After asks for, within RATE_LIMIT_RETRIES and RATE_LIMIT_WAIT_MS. Stopping
 * the execution aborts the request (newer n8n passes its signal itself; older ones only when asked, as here).
 */
export async function mailroomRequest(
	this: MailroomContext,
	method: IHttpRequestMethods,
	path: string,
	{ body, qs, text = false, binary = false, timeout, itemIndex, fieldNames }: RequestOptions = {},
): Promise<unknown> {
	const { baseUrl } = await this.getCredentials<{ baseUrl: string }>('mailroomApi', itemIndex);
	const abortSignal = cancelSignalOf(this);
	const request: IHttpRequestOptions = {
		method,
		baseURL: apiBaseUrl(String(baseUrl)),
		url: path,
		qs,
		body,
		json: !text && !binary,
		...(text ? { encoding: 'text' as const } : {}),
		...(binary ? { encoding: 'arraybuffer' as const } : {}),
		...(timeout ? { timeout } : {}),
		...(abortSignal ? { abortSignal } : {}),
		// Error answers come back to us, so that their body is at hand whatever the encoding.
		ignoreHttpStatusErrors: true,
		returnFullResponse: true,
	};
	const stopped = () => new NodeOperationError(this.getNode(), 'The execution was stopped', { itemIndex });
	let waited = 0;
	for (let retry = 0; ; retry++) {
		let response: IN8nHttpFullResponse;
		try {
			response = (await this.helpers.httpRequestWithAuthentication.call(this, 'mailroomApi', request)) as IN8nHttpFullResponse;
		} catch (error) {
			if (abortSignal?.aborted) throw stopped();
			// No answer at all (refused, timed out, ...): n8n's NodeApiError already says which.
			throw new NodeApiError(this.getNode(), error as JsonObject, { itemIndex });
		}
		if (response.statusCode < 400) return binary ? Buffer.from(response.body as ArrayBuffer) : response.body;
		const wait = response.statusCode === 429 ? (retryAfterMs(response.headers) ?? DEFAULT_RETRY_AFTER_MS) : undefined;
		if (wait === undefined || retry >= RATE_LIMIT_RETRIES || waited + wait > RATE_LIMIT_WAIT_MS) {
			throw errorOfAnswer(this.getNode(), response, itemIndex, fieldNames);
		}
		await sleep(wait);
		waited += wait;
		if (abortSignal?.aborted) throw stopped();
	}
}

/** The HTTP status of a failed request, if the server answered at all. */
export function httpStatus(error: unknown): number | undefined {
	const code = (error as { httpCode?: unknown }).httpCode;
	return code ? Number(code) : undefined;
}

/** A NodeApiError from an error answer `{"error": "Not Found", "message": "..."}` (or any other body). */
function errorOfAnswer(node: INode, { statusCode, body: answer }: IN8nHttpFullResponse, itemIndex?: number, fieldNames?: FieldNames) {
	// A binary request gets its error answer as bytes too.
	const body = answer instanceof ArrayBuffer || ArrayBuffer.isView(answer) ? Buffer.from(answer as ArrayBuffer).toString() : answer;
	const data =
		typeof body === 'string' ? jsonParse<IDataObject>(body, { fallbackValue: { message: body.trim() } }) : ((body ?? {}) as IDataObject);
	const status = String(statusCode);
	const field = typeof data.field === 'string' ? data.field : undefined;
	const message =
		typeof data.message === 'string' && data.message ? inNodeWords(data.message, field, fieldNames) : `Mailroom answered HTTP ${status}`;
	return new NodeApiError(
		node,
		{ ...data, httpCode: status },
		{
			message,
			description: `HTTP ${status}${typeof data.error === 'string' ? ` ${data.error}` : ''}`,
			httpCode: status,
			itemIndex,
		},
	);
}

/**
 * What `request` answers, or undefined when the account does not own the address it is about: not
 * reserved by anyone (404) or reserved by another account (403).
 */
export async function unlessNotOwned<T>(node: INode, request: Promise<T>): Promise<T | undefined> {
	try {
		return await request;
	} catch (error) {
		const status = httpStatus(error);
		if (status === 404 || status === 403) return undefined;
		throw new NodeApiError(node, error as JsonObject);
	}
}

/** The forwarding record of one of the account's addresses, or undefined when the account does not own it. */
export async function getAddressRecord(this: MailroomContext, email: string): Promise<AddressRecord | undefined> {
	const request = mailroomRequest.call(this, 'GET', `/api/addresses/${addressPath(email)}`) as Promise<AddressRecord>;
	return await unlessNotOwned(this.getNode(), request);
}
