import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { composedFieldNames, composedFields, composeOptions, emailBody, emailBodyProperties, type ComposeOptions } from '../compose';
import { mailroomRequest } from '../../shared/transport';

const reply = { resource: ['message'], operation: ['reply'] };

export const messageReplyProperties: INodeProperties[] = [
	{
		displayName: 'Reply All',
		name: 'replyAll',
		type: 'boolean',
		default: false,
		displayOptions: { show: reply },
		description: "Whether to reply to the message's other recipients too (its To and CC, in To and CC), but your account's own addresses",
	},
	...emailBodyProperties({ show: reply }),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: reply },
		description: 'Optional parts of the reply',
		options: composeOptions([
			{
				displayName: 'From',
				name: 'from',
				type: 'string',
				default: '',
				placeholder: 'me@example.com',
				description: 'Sender address, one your account owns; by default the Email Address the message was received at',
			},
		]),
	},
];

/**
 * Message → Reply: sends a reply in the message's thread (In-Reply-To and References), to its sender (its Reply-To
 * address when it has one), with Reply All to its other To and Cc recipients too, with the subject "Re: <its subject>",
 * from the address that received it unless the From option says otherwise. The server fills in the recipients, subject
 * and threading headers from the message.
 */
export async function replyToMessage(this: IExecuteFunctions, email: string, messageId: string, itemIndex: number): Promise<IDataObject> {
	const options = this.getNodeParameter('options', itemIndex, {}) as ComposeOptions & { from?: string };
	const from = options.from?.trim() || email.trim();
	const content = emailBody.call(this, itemIndex);
	const body: IDataObject = {
		inReplyTo: messageId.trim(),
		...(this.getNodeParameter('replyAll', itemIndex, false) && { replyAll: true }),
		...content,
		...(await composedFields.call(this, itemIndex, from, options, content.html as string | undefined)),
	};
	const fieldNames = { ...composedFieldNames, inReplyTo: 'Message ID', replyAll: 'Reply All' };
	return (await mailroomRequest.call(this, 'POST', '/api/outgoing-messages', { body, itemIndex, fieldNames })) as IDataObject;
}
