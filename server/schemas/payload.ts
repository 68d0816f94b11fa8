/** The webhook payload (spec 2.3 and Mailroom's additions) as the API documents it, and the attachments it lists. */
import Type, { type Static } from 'typebox';
import { AddressObjectSchema } from './message';
import { MessageAuthSchema } from './sender-auth';
import { DateTime, Nullable, refTo } from './shared';

export const AttachmentLinkSchema = Type.Object(
	{
		filename: Nullable(Type.String()),
		contentType: Type.String(),
		size: Type.Integer({ description: 'bytes of the decoded content' }),
		checksum: Type.String({ description: "MD5 hex of the content: the attachment's identifier in the message record" }),
		contentId: Nullable(Type.String(), { description: 'the Content-ID header (cid)' }),
		url: Type.String({
			description:
				"absolute: the server's public URL (--public-url), then the attachment's download route; a private address's needs its owner's key",
		}),
	},
	{ description: 'An attachment as a payload lists it: what it is, and the URL that downloads it' },
);
export type AttachmentLink = Static<typeof AttachmentLinkSchema>;

const addressList = Type.Array(refTo(AddressObjectSchema));

export const WebhookPayloadSchema = Type.Object(
	{
		text: Type.String({ description: 'the plain-text body as received (for mail with only an HTML part, text made from it)' }),
		headers: Type.Record(Type.String(), Type.String(), {
			description: 'lower-case header names; a header that occurs more than once has its values in order, joined with "\\n"',
		}),
		subject: Type.String(),
		messageId: Type.String({ description: 'the Message-ID header' }),
		priority: Type.String({ description: 'high, normal or low' }),
		from: addressList,
		to: addressList,
		date: DateTime({ description: 'the Date header; when the message was received if it has no valid one' }),
		receivedDate: DateTime(),
		originalInbox: Type.String({ description: 'the address the message was sent to' }),
		inbox: Type.String({ description: 'the inbox that holds it' }),
		domain: Type.String(),
		encryptedInbox: Type.String({ description: 'opaque alias of the inbox: mail to <encryptedInbox>@<domain> lands in it' }),
		raw: Type.String({ description: 'the whole message source, with CRLF line breaks' }),
		received: DateTime(),
		_id: Type.String({ description: 'message id' }),
		ip: Type.String({ description: 'the sending host' }),
		html: Nullable(Type.String(), { description: 'the HTML body as received; null when the message has no HTML part' }),
		cc: Nullable(addressList, { description: 'null when the message has no Cc' }),
		attachments: Type.Array(AttachmentLinkSchema),
		auth: Nullable(refTo(MessageAuthSchema), { description: "who sent it, as the message record's auth" }),
		strippedText: Nullable(Type.String(), { description: "what the person wrote, as the message record's strippedText" }),
		strippedSignature: Nullable(Type.String(), { description: 'the signature block, when one was found' }),
		codes: Type.Array(Type.String(), { description: 'one-time codes, most likely first' }),
		links: Type.Array(Type.String(), { description: 'the links of the message' }),
		threadId: Type.String({ description: "the conversation the message belongs to, as its record's threadId" }),
	},
	{
		$id: 'WebhookPayload',
		description:
			'A message as webhooks (and webhook subscriptions, so the n8n Mailroom Trigger) receive it: the fields of spec 2.3, then html, cc, attachments, auth, strippedText, strippedSignature, codes, links and threadId',
	},
);
