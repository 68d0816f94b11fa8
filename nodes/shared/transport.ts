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
import { jsonParse, NodeApiError, NodeOperationError } from 'n8n-workflow';

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

/**
 * Calls the Mailroom REST API with the mailroomApi credential (its own `authenticate` definition
 * puts the key in the Service-Key header). An error answer becomes a NodeApiError whose message is
 * the server's `message` and whose httpCode is the HTTP status. Stopping the execution aborts the
 * request (newer n8n passes its signal itself; older ones only when asked, as here).
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
	let response: IN8nHttpFullResponse;
	try {
		response = (await this.helpers.httpRequestWithAuthentication.call(this, 'mailroomApi', request)) as IN8nHttpFullResponse;
	} catch (error) {
		if (abortSignal?.aborted) throw new NodeOperationError(this.getNode(), 'The execution was stopped', { itemIndex });
		// No answer at all (refused, timed out, ...): n8n's NodeApiError already says which.
		throw new NodeApiError(this.getNode(), error as JsonObject, { itemIndex });
	}
	if (response.statusCode < 400) return binary ? Buffer.from(response.body as ArrayBuffer) : response.body;
	throw errorOfAnswer(this.getNode(), response, itemIndex, fieldNames);
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
