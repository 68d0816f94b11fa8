import type { IDataObject, INodeExecutionData, IWebhookFunctions } from 'n8n-workflow';

import { downloadAttachments } from '../shared/attachments';

/** An attachment as the webhook payload lists it. */
interface PayloadAttachment {
	filename: string | null;
	contentType: string;
	checksum: string;
	url: string;
}

/** What a simplified item keeps of the payload: who, what, when, the bodies and the attachment list. */
const SIMPLE_FIELDS = ['_id', 'inbox', 'from', 'to', 'cc', 'subject', 'text', 'html', 'attachments', 'received'];

export interface ItemOptions {
	simplify: boolean;
	includeRawSource: boolean;
	downloadAttachments: boolean;
	/** Attachment i becomes the binary property `${attachmentPrefix}${i}`. */
	attachmentPrefix: string;
}

/** The item a delivered message becomes, as the trigger's options shape it. */
export async function messageItem(this: IWebhookFunctions, payload: IDataObject, options: ItemOptions): Promise<INodeExecutionData> {
	const json: IDataObject = options.simplify
		? Object.fromEntries(SIMPLE_FIELDS.filter((field) => field in payload).map((field) => [field, payload[field]]))
		: { ...payload };
	if (options.includeRawSource) json.raw = payload.raw;
	else delete json.raw;
	if (!options.downloadAttachments) return { json };
	// Fetched at the credential's Base URL, where n8n reaches Mailroom (the payload's url is Mailroom's public one):
	// only the url's path is taken, so the API key goes nowhere else.
	const attachments = ((payload.attachments ?? []) as PayloadAttachment[]).map((attachment) => ({
		path: new URL(attachment.url).pathname,
		fileName: attachment.filename,
		checksum: attachment.checksum,
		contentType: attachment.contentType,
	}));
	return { json, binary: await downloadAttachments.call(this, attachments, options.attachmentPrefix) };
}
