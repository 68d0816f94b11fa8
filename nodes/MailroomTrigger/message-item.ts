import type { IDataObject, INodeExecutionData, IWebhookFunctions } from 'n8n-workflow';

import { downloadAttachments, payloadAttachmentSources, type PayloadAttachment } from '../shared/attachments';
import { simplifiedMessage } from '../shared/simplified-message';

export interface ItemOptions {
	simplify: boolean;
	includeRawSource: boolean;
	downloadAttachments: boolean;
	/** Attachment i becomes the binary property `${attachmentPrefix}${i}`. */
	attachmentPrefix: string;
}

/** The item a delivered message becomes, as the trigger's options shape it. */
export async function messageItem(this: IWebhookFunctions, payload: IDataObject, options: ItemOptions): Promise<INodeExecutionData> {
	const json: IDataObject = options.simplify ? simplifiedMessage(payload) : { ...payload };
	if (options.includeRawSource) json.raw = payload.raw;
	else delete json.raw;
	if (!options.downloadAttachments) return { json };
	const attachments = payloadAttachmentSources(
		payload as { inbox: string; _id: string },
		(payload.attachments ?? []) as PayloadAttachment[],
	);
	return { json, binary: await downloadAttachments.call(this, attachments, options.attachmentPrefix) };
}
