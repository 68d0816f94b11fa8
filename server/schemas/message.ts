/** The message as the API shows it: its record (spec 2.1), its senders and recipients, its attachments. */

/** A sender or recipient: its address (lower-cased) and display name ('' when none). */
export interface AddressObject {
	address: string;
	name: string;
}

/** What the API tells about an attachment (Mailsac AttachmentMeta). */
export interface AttachmentMeta {
	/** MD5 hex of the decoded content: the attachment identifier. */
	checksum: string;
	contentType: string;
	fileName: string | null;
	length: number;
	contentId: string | null;
	contentDisposition: string | null;
	transferEncoding: string | null;
}

/** A stored message as the API returns it (spec 2.1). */
export interface MessageRecord {
	_id: string;
	from: AddressObject[];
	to: AddressObject[];
	cc: AddressObject[] | null;
	bcc: AddressObject[] | null;
	subject: string;
	savedBy: string | null;
	originalInbox: string;
	inbox: string;
	domain: string;
	received: string;
	size: number;
	attachments: string[] | null;
	ip: string;
	via: string;
	folder: string;
	labels: string[];
	read: boolean | null;
	rtls: boolean;
	links: string[];
	spam: number;
}
