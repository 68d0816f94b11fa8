/** The message as the API shows it: its record (spec 2.1), its senders and recipients, its attachments. */
import Type, { type Static } from 'typebox';
import { DateTime, Nullable, refTo } from './shared';
import { MessageAuthSchema } from './sender-auth';

export const AddressObjectSchema = Type.Object(
	{ address: Type.String({ description: 'lower-cased' }), name: Type.String({ description: "the display name; '' when none" }) },
	{ $id: 'AddressObject', description: 'A sender or recipient' },
);
export type AddressObject = Static<typeof AddressObjectSchema>;

const addressList = Type.Array(refTo(AddressObjectSchema));

export const AttachmentFileSchema = Type.Object(
	{
		checksum: Type.String({ description: 'MD5 hex of the content: the attachment identifier, as in attachments' }),
		fileName: Nullable(Type.String()),
		contentType: Type.String(),
		size: Type.Integer({ description: 'bytes' }),
		contentId: Nullable(Type.String(), { description: 'the Content-ID header (cid), for a part the HTML shows' }),
	},
	{ $id: 'AttachmentFile', description: "An attachment as a message's record names it" },
);
export type AttachmentFile = Static<typeof AttachmentFileSchema>;

export const FolderSchema = Type.Enum(['inbox', 'all', 'spam', 'trash']);
export type Folder = Static<typeof FolderSchema>;

export const MessageSchema = Type.Object(
	{
		_id: Type.String(),
		threadId: Type.String({
			description:
				'the conversation: messages that answer one another (In-Reply-To, References) share it, within one account (or among public inboxes); GET /api/threads/{threadId} lists them',
		}),
		from: addressList,
		to: addressList,
		cc: Nullable(addressList),
		bcc: Nullable(addressList),
		subject: Type.String(),
		savedBy: Nullable(Type.String(), { description: 'the account that starred the message' }),
		originalInbox: Type.String({ description: 'the address the message was sent to' }),
		inbox: Type.String({ description: 'the inbox that holds it' }),
		domain: Type.String(),
		received: DateTime(),
		size: Type.Integer({ description: 'bytes of the raw message' }),
		attachments: Nullable(Type.Array(Type.String()), { description: 'MD5 hex of each attachment' }),
		ip: Type.String({ description: 'the sending host' }),
		via: Type.String({ description: 'the receiving host' }),
		folder: FolderSchema,
		labels: Type.Array(Type.String()),
		read: Nullable(Type.Boolean()),
		rtls: Type.Boolean({ description: 'received over TLS' }),
		links: Type.Array(Type.String()),
		auth: Nullable(refTo(MessageAuthSchema), {
			description:
				'who sent it, as SPF, DKIM, DMARC and ARC say; null when not verified (sender verification off, or mail not received over SMTP)',
		}),
		strippedText: Nullable(Type.String(), {
			description:
				'what the person wrote: the text without the quoted earlier messages and the signature (its first 16,384 characters); null for mail stored before Mailroom read replies',
		}),
		strippedSignature: Nullable(Type.String(), { description: 'the signature block, when one was found' }),
		codes: Type.Array(Type.String(), { description: 'one-time codes (sign-up, login, reset) of the subject and text, most likely first' }),
		messageId: Nullable(Type.String(), {
			description: "the Message-ID header; '' when the message has none; null for mail stored before Mailroom kept it in the record",
		}),
		date: Nullable(DateTime(), {
			description: 'the Date header (ISO 8601); null when missing or invalid, and for mail stored before Mailroom kept it in the record',
		}),
		replyTo: Nullable(addressList, {
			description:
				'the Reply-To addresses, as from gives addresses; null when none, and for mail stored before Mailroom kept them in the record',
		}),
		attachmentFiles: Nullable(Type.Array(refTo(AttachmentFileSchema)), {
			description:
				"each attachment's file name, type and size, in the order of attachments; [] when none; null for mail stored before Mailroom kept them in the record",
		}),
		spam: Type.Number({ minimum: 0, maximum: 1 }),
	},
	{
		$id: 'Message',
		description: 'A received message (spec 2.1); one record per recipient inbox.',
		examples: [
			{
				_id: 'VP7ZCk8ELgF-xcBQ',
				threadId: '5be0c4b2a7e94f1d83c6a0e2',
				from: [{ address: 'billing@shop.example', name: 'Example Shop' }],
				to: [{ address: 'alice@example.com', name: 'Alice Martin' }],
				cc: null,
				bcc: null,
				subject: 'Your receipt for order #1042',
				savedBy: null,
				originalInbox: 'alice@example.com',
				inbox: 'alice@example.com',
				domain: 'example.com',
				received: '2026-11-28T09:41:07.512Z',
				size: 18342,
				attachments: ['0f343b0931126a20f133d67c2b018a3b'],
				ip: '203.0.113.25',
				via: '198.51.100.10',
				folder: 'inbox',
				labels: ['receipts'],
				read: false,
				rtls: true,
				links: ['https://shop.example/orders/1042'],
				auth: {
					spf: { result: 'pass', domain: 'shop.example' },
					dkim: [{ result: 'pass', domain: 'shop.example', selector: 's1', aligned: true }],
					dmarc: { result: 'pass', policy: 'reject', domain: 'shop.example' },
					arc: { result: 'none' },
					authenticated: true,
				},
				strippedText: 'Thanks for your order! Your receipt is attached.',
				strippedSignature: null,
				codes: [],
				messageId: '<receipt-1042@shop.example>',
				date: '2026-11-28T09:41:05.000Z',
				replyTo: [{ address: 'support@shop.example', name: 'Example Shop Support' }],
				attachmentFiles: [
					{
						checksum: '0f343b0931126a20f133d67c2b018a3b',
						fileName: 'receipt-1042.pdf',
						contentType: 'application/pdf',
						size: 48213,
						contentId: null,
					},
				],
				spam: 0,
			},
		],
	},
);
export type MessageRecord = Static<typeof MessageSchema>;

export const AttachmentMetaSchema = Type.Object(
	{
		checksum: Type.String({ description: 'MD5 hex of the content: the attachment identifier' }),
		contentType: Type.String(),
		fileName: Nullable(Type.String()),
		length: Type.Integer({ description: 'bytes' }),
		contentId: Nullable(Type.String(), { description: 'the Content-ID header (cid)' }),
		contentDisposition: Nullable(Type.String()),
		transferEncoding: Nullable(Type.String()),
	},
	{
		$id: 'AttachmentMeta',
		description: 'What the API tells about an attachment (Mailsac AttachmentMeta)',
		examples: [
			{
				checksum: '0f343b0931126a20f133d67c2b018a3b',
				contentType: 'application/pdf',
				fileName: 'receipt-1042.pdf',
				length: 48213,
				contentId: null,
				contentDisposition: 'attachment',
				transferEncoding: 'base64',
			},
		],
	},
);
export type AttachmentMeta = Static<typeof AttachmentMetaSchema>;
