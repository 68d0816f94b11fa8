import type { IDataObject, IDisplayOptions, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { FieldNames } from '../shared/field-names';
import { contentIdsReferenced, inlineContentId } from './inline-images';

/**
 * The parts of an outgoing email that Send and Reply share: its body in the Email Format chosen, and the options
 * (copies, attachments, headers, sender name) with the names n8n's Send Email and Gmail nodes give them.
 */

const byName = (a: INodeProperties, b: INodeProperties) => a.displayName.localeCompare(b.displayName);

/** Email Format, Text and HTML, as n8n's Send Email node has them, shown where `displayOptions` says. */
export function emailBodyProperties({ show, hide }: IDisplayOptions): INodeProperties[] {
	const forFormats = (formats: string[]): IDisplayOptions => ({ show: { ...show, emailFormat: formats }, ...(hide && { hide }) });
	return [
		{
			displayName: 'Email Format',
			name: 'emailFormat',
			type: 'options',
			options: [
				{ name: 'Text', value: 'text', description: 'Send the email as plain text' },
				{ name: 'HTML', value: 'html', description: 'Send the email as HTML' },
				{ name: 'Both', value: 'both', description: "Send both formats; the recipient's mail client picks the one it shows" },
			],
			default: 'text',
			displayOptions: { show, ...(hide && { hide }) },
			description: 'The body parts of the email',
		},
		{
			displayName: 'Text',
			name: 'text',
			type: 'string',
			typeOptions: { rows: 5 },
			default: '',
			displayOptions: forFormats(['text', 'both']),
			description: 'Plain text body of the email',
		},
		{
			displayName: 'HTML',
			name: 'html',
			type: 'string',
			typeOptions: { rows: 5 },
			default: '',
			displayOptions: forFormats(['html', 'both']),
			description: 'HTML body of the email',
		},
	];
}

/** The options of any outgoing email. */
const outgoingOptions: INodeProperties[] = [
	{
		displayName: 'Attachments',
		name: 'attachments',
		type: 'string',
		default: '',
		placeholder: 'data, invoice',
		description:
			'Names of the binary properties of the input item to attach, separated by commas. To show an image in the HTML, refer to it by its property name or file name: &lt;img src="cid:data"&gt; or &lt;img src="cid:logo.png"&gt;; only those become inline images, the others are attachments.',
	},
	{
		displayName: 'BCC',
		name: 'bccEmail',
		type: 'string',
		default: '',
		placeholder: 'audit@example.com',
		description: 'Blind copy recipients, separated by commas; they appear in no header of the email. Each costs one credit.',
	},
	{
		displayName: 'CC',
		name: 'ccEmail',
		type: 'string',
		default: '',
		placeholder: 'team@example.com, Boss <boss@example.com>',
		description: 'Copy recipients, separated by commas; "Name &lt;address&gt;" works too. Each costs one credit.',
	},
	{
		displayName: 'Headers',
		name: 'headers',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Header',
		default: {},
		description: 'Extra header lines, e.g. X-Campaign; Mailroom refuses the ones it sets itself (From, To, Subject, Date…)',
		options: [
			{
				displayName: 'Header',
				name: 'header',
				values: [
					{ displayName: 'Name', name: 'name', type: 'string', default: '', placeholder: 'X-Campaign', description: 'Header name' },
					{ displayName: 'Value', name: 'value', type: 'string', default: '', description: 'Header value' },
				],
			},
		],
	},
	{
		displayName: 'Reply To',
		name: 'replyTo',
		type: 'string',
		default: '',
		placeholder: 'support@example.com',
		description: 'The address replies to this email should go to (the Reply-To header)',
	},
	{
		displayName: 'Sender Name',
		name: 'senderName',
		type: 'string',
		default: '',
		placeholder: 'e.g. Nathan',
		description: "The name shown as the sender in recipients' inboxes",
	},
];

/** The options of any outgoing email and `extra` ones, in display order. */
export const composeOptions = (extra: INodeProperties[] = []): INodeProperties[] => [...extra, ...outgoingOptions].sort(byName);

/** The parameters behind the fields of POST /api/outgoing-messages that Send and Reply share, for the API's errors. */
export const composedFieldNames: FieldNames = {
	from: 'From',
	text: 'Text',
	html: 'HTML',
	cc: 'CC',
	bcc: 'BCC',
	replyTo: 'Reply To',
	headers: 'Headers',
	attachments: 'Attachments',
};

/** What the options above hold. */
export interface ComposeOptions {
	attachments?: string;
	bccEmail?: string;
	ccEmail?: string;
	headers?: { header?: Array<{ name?: string; value?: string }> };
	replyTo?: string;
	senderName?: string;
}

/** Text and HTML as Email Format asks for them; empty ones are left out. */
export function emailBody(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const format = this.getNodeParameter('emailFormat', itemIndex) as string;
	const text = format === 'html' ? '' : (this.getNodeParameter('text', itemIndex, '') as string);
	const html = format === 'text' ? '' : (this.getNodeParameter('html', itemIndex, '') as string);
	return { ...(text && { text }), ...(html && { html }) };
}

/** A display name as a quoted string, so that commas and angle brackets in it stay part of the name. */
const quotedName = (name: string) => `"${name.replace(/["\\]/g, '\\$&')}"`;

/**
 * The binary properties named in Attachments, as attachments of POST /api/outgoing-messages; those the HTML refers to
 * with `cid:` get a Content-ID (and so are inline), the others none.
 */
async function attachmentsOf(this: IExecuteFunctions, itemIndex: number, names: string, html?: string): Promise<IDataObject[]> {
	const referenced = contentIdsReferenced(html);
	const attachments: IDataObject[] = [];
	for (const property of names.split(',').map((name) => name.trim())) {
		if (!property) continue;
		const binary = this.helpers.assertBinaryData(itemIndex, property);
		const bytes = await this.helpers.getBinaryDataBuffer(itemIndex, property);
		const contentId = inlineContentId(referenced, property, binary.fileName);
		attachments.push({
			filename: binary.fileName ?? property,
			...(binary.mimeType && { contentType: binary.mimeType }),
			content: bytes.toString('base64'),
			...(contentId && { contentId }),
		});
	}
	return attachments;
}

/**
 * The sender, copies, Reply-To, headers and attachments of POST /api/outgoing-messages; options not set are left out.
 * `html` is the HTML body sent, whose `cid:` references make attachments inline.
 */
export async function composedFields(
	this: IExecuteFunctions,
	itemIndex: number,
	from: string,
	options: ComposeOptions,
	html?: string,
): Promise<IDataObject> {
	const senderName = options.senderName?.trim();
	// The server splits address lists itself, so a quoted name with a comma ("Doe, Jane" <jane@example.com>) stays whole.
	const fields: IDataObject = { from: senderName ? `${quotedName(senderName)} <${from}>` : from };
	if (options.ccEmail?.trim()) fields.cc = options.ccEmail.trim();
	if (options.bccEmail?.trim()) fields.bcc = options.bccEmail.trim();
	if (options.replyTo?.trim()) fields.replyTo = options.replyTo.trim();
	const headers = (options.headers?.header ?? []).filter((header) => header.name?.trim());
	if (headers.length) fields.headers = Object.fromEntries(headers.map((header) => [header.name!.trim(), header.value ?? '']));
	const attachments = await attachmentsOf.call(this, itemIndex, options.attachments ?? '', html);
	if (attachments.length) fields.attachments = attachments;
	return fields;
}
