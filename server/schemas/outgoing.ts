/** Sent mail as the API shows it. */

export type SendStatus = 'queued' | 'delivered' | 'failed';

/** Where a recipient's copy goes: into a local inbox, or out through the SMTP relay. */
export type Route = 'local' | 'relay';

export interface OutgoingRecipient {
	address: string;
	route: Route;
	status: SendStatus;
	/** The last failure for this recipient (the relay's reply when it gave one). */
	error: string | null;
}

/** A sent message as GET /api/outgoing-messages returns it. */
export interface OutgoingRecord {
	_id: string;
	from: string;
	to: string[];
	subject: string;
	status: SendStatus;
	sent: string;
	lastError: string | null;
	attempts: number;
	recipients: OutgoingRecipient[];
}
