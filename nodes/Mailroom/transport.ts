import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	INode,
	JsonObject,
} from 'n8n-workflow';
import { jsonParse, NodeApiError, NodeOperationError } from 'n8n-workflow';

/** The functions objects our requests run in: the action node and the trigger's webhook methods. */
export type MailroomContext = IExecuteFunctions | IHookFunctions;

export interface RequestOptions {
	body?: IDataObject;
	qs?: IDataObject;
	/** The response is plain text, not JSON (GET /api/text/...). */
	text?: boolean;
	itemIndex?: number;
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
 * Calls the Mailroom REST API with the mailroomApi credential (its own `authenticate`
 * definition puts the key in the Service-Key header). Failures become a NodeApiError whose
 * message is the server's `message` and whose httpCode is the HTTP status.
 */
export async function mailroomRequest(
	this: MailroomContext,
	method: IHttpRequestMethods,
	path: string,
	{ body, qs, text = false, itemIndex }: RequestOptions = {},
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<any> {
	const { baseUrl } = await this.getCredentials<{ baseUrl: string }>('mailroomApi', itemIndex);
	const request: IHttpRequestOptions = {
		method,
		baseURL: String(baseUrl).replace(/\/+$/, ''),
		url: path,
		qs,
		body,
		json: !text,
		...(text ? { encoding: 'text' as const } : {}),
	};
	try {
		return await this.helpers.httpRequestWithAuthentication.call(this, 'mailroomApi', request);
	} catch (error) {
		throw mailroomError(this.getNode(), error, itemIndex);
	}
}

/** The HTTP status of a failed request, if the server answered at all. */
export function httpStatus(error: unknown): number | undefined {
	const code = (error as { httpCode?: unknown }).httpCode;
	return code ? Number(code) : undefined;
}

function mailroomError(node: INode, error: unknown, itemIndex?: number) {
	const response = (error as { cause?: { response?: { status?: number; data?: unknown } } }).cause
		?.response;
	if (!response?.status) {
		// No answer from the server (refused, timed out, ...): n8n's own error says which.
		return error instanceof NodeApiError || error instanceof NodeOperationError
			? error
			: new NodeApiError(node, error as JsonObject, { itemIndex });
	}
	const data =
		typeof response.data === 'string'
			? jsonParse<IDataObject>(response.data, { fallbackValue: { message: response.data } })
			: ((response.data ?? {}) as IDataObject);
	const status = String(response.status);
	const serverMessage = typeof data.message === 'string' && data.message ? data.message : undefined;
	return new NodeApiError(node, { ...data, httpCode: status } as JsonObject, {
		message: serverMessage ?? `Mailroom answered with HTTP ${status}`,
		description: `HTTP ${status}${typeof data.error === 'string' ? ` ${data.error}` : ''}`,
		httpCode: status,
		itemIndex,
	});
}

/** The forwarding record of one of the account's addresses, or undefined when the account does not own it (404). */
export async function getAddressRecord(
	this: MailroomContext,
	email: string,
): Promise<AddressRecord | undefined> {
	try {
		return (await mailroomRequest.call(this, 'GET', `/api/addresses/${addressPath(email)}`)) as AddressRecord;
	} catch (error) {
		if (httpStatus(error) === 404) return undefined;
		throw new NodeApiError(this.getNode(), error as JsonObject);
	}
}
