import type { IBinaryKeyData, IExecuteFunctions, INodeProperties, IWebhookFunctions } from 'n8n-workflow';

import { addressPath, mailroomRequest } from './transport';

/** An attachment of a stored message to download: where the API serves it, and what it is. */
export interface AttachmentSource {
	/** Path of its download route on the Mailroom API: /api/addresses/<inbox>/messages/<id>/attachments/<checksum>. */
	path: string;
	fileName: string | null;
	checksum: string;
	contentType: string;
}

/** An attachment as the webhook payload (and GET …/messages/<id>/payload) lists it. */
export interface PayloadAttachment {
	filename: string | null;
	contentType: string;
	size: number;
	checksum: string;
	contentId: string | null;
	/** Absolute, at Mailroom's public URL. */
	url: string;
}

/**
 * The attachments a payload lists, to download from the message's own path at the credential's Base URL. The payload's
 * `url` is not followed: it is Mailroom's public URL, which n8n may not reach, and the API key must go nowhere else.
 */
export const payloadAttachmentSources = (message: { inbox: string; _id: string }, attachments: PayloadAttachment[]): AttachmentSource[] =>
	attachments.map((attachment) => ({
		path: `/api/addresses/${addressPath(message.inbox)}/messages/${encodeURIComponent(message._id)}/attachments/${attachment.checksum}`,
		fileName: attachment.filename,
		checksum: attachment.checksum,
		contentType: attachment.contentType,
	}));

/** The options of an operation that can output a message's attachments as binary data (the names of n8n's Gmail node). */
export const attachmentDownloadOptions: INodeProperties[] = [
	{
		displayName: 'Attachment Prefix',
		name: 'dataPropertyAttachmentsPrefixName',
		type: 'string',
		default: 'attachment_',
		description:
			"Prefix for the name of the binary property each attachment is written to, followed by its index from 0: with 'attachment_', the first is 'attachment_0'",
	},
	{
		displayName: 'Download Attachments',
		name: 'downloadAttachments',
		type: 'boolean',
		default: false,
		description: "Whether to download the message's attachments as binary data",
	},
];

/** What the options above hold. */
export interface AttachmentDownload {
	dataPropertyAttachmentsPrefixName?: string;
	downloadAttachments?: boolean;
}

/** The binary property names start with this unless the Attachment Prefix option says otherwise. */
export const attachmentPrefix = (options: AttachmentDownload) => options.dataPropertyAttachmentsPrefixName ?? 'attachment_';

/** The attachments as binary data, attachment i as `${prefix}${i}`, each fetched from the API with the credential. */
export async function downloadAttachments(
	this: IExecuteFunctions | IWebhookFunctions,
	attachments: AttachmentSource[],
	prefix: string,
	itemIndex?: number,
): Promise<IBinaryKeyData> {
	const binary: IBinaryKeyData = {};
	for (const [index, attachment] of attachments.entries()) {
		const bytes = (await mailroomRequest.call(this, 'GET', attachment.path, { binary: true, itemIndex })) as Buffer;
		const fileName = attachment.fileName ?? attachment.checksum;
		binary[`${prefix}${index}`] = await this.helpers.prepareBinaryData(bytes, fileName, attachment.contentType);
	}
	return binary;
}
