import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { hasValidSignature, signatureProblem } from '../../MailroomTrigger/signature';
import { simplifiedMessage } from '../../shared/simplified-message';
import { mailroomRequest } from '../../shared/transport';
import { formPage, RECORDED_PAGE } from './send-and-wait-pages';
import type { ResponseType, SendAndWaitOptions } from './send-and-wait';

/** Answers without resuming: the execution keeps waiting. */
function refuse(this: IWebhookFunctions, status: number, message: string): IWebhookResponseData {
	const response = this.getResponseObject();
	response.writeHead(status, { 'content-type': 'application/json' });
	response.end(JSON.stringify({ error: status === 401 ? 'Unauthorized' : 'Bad Request', message }));
	return { noWebhookResponse: true };
}

/** Why a POST is not a delivery signed with our account's webhook secret (fetched now: it may have been rotated), if it is not. */
async function unsignedReason(this: IWebhookFunctions): Promise<string | undefined> {
	const headers = this.getHeaderData() as IDataObject;
	const problem = signatureProblem(headers);
	if (problem) return problem;
	const rawBody = (this.getRequestObject() as { rawBody?: Uint8Array }).rawBody;
	const body = rawBody ?? new TextEncoder().encode(JSON.stringify(this.getBodyData()));
	const { secret } = (await mailroomRequest.call(this, 'GET', '/api/webhook-secret')) as { secret: string };
	return (await hasValidSignature(secret, headers, body)) ? undefined : 'The webhook signature does not match';
}

/** The reply Mailroom posts (see the replyHook of the send): the execution goes on with it as a simplified message item. */
async function replyReceived(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	if (this.getRequestObject().method !== 'POST') return refuse.call(this, 400, 'This execution waits for a reply to its email');
	const unsigned = await unsignedReason.call(this);
	if (unsigned) return refuse.call(this, 401, unsigned);
	const payload = this.getBodyData();
	if (typeof payload._id !== 'string') return refuse.call(this, 400, 'Expected a Mailroom message as JSON');
	return { webhookResponse: { received: true }, workflowData: [[{ json: simplifiedMessage(payload) }]] };
}

/** GET: the form; POST: its answer, `{ data: { text } }` as n8n's Free Text response. */
function freeText(this: IWebhookFunctions): IWebhookResponseData {
	if (this.getRequestObject().method === 'GET') {
		const options = this.getNodeParameter('options', {}) as SendAndWaitOptions;
		const response = this.getResponseObject();
		response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
		response.end(
			formPage({
				title: options.responseFormTitle ?? '',
				description: options.responseFormDescription || (this.getNodeParameter('message', '') as string),
				buttonLabel: options.responseFormButtonLabel || 'Submit',
			}),
		);
		return { noWebhookResponse: true };
	}
	const { text } = this.getBodyData();
	if (typeof text !== 'string' || !text.trim()) return refuse.call(this, 400, 'The response is empty');
	return { webhookResponse: RECORDED_PAGE, workflowData: [[{ json: { data: { text } } }]] };
}

/** The resume webhook of Send and Wait for Response: what the response is depends on the Response Type. */
export async function sendAndWaitWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const responseType = this.getNodeParameter('responseType', 'approval') as ResponseType;
	if (responseType === 'reply') return await replyReceived.call(this);
	if (responseType === 'freeText') return freeText.call(this);
	const approved = (this.getQueryData() as IDataObject).approved === 'true';
	return { webhookResponse: RECORDED_PAGE, workflowData: [[{ json: { data: { approved } } }]] };
}
