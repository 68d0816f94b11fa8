import type { OutgoingRecipient, OutgoingRecord, RecipientField, SendStatus } from '../schemas/outgoing';
import type { Outcome } from './store';
import type { DeliveryReport } from '../mail/delivery-report';

/** A row of outgoing_messages, as either engine reads it. */
export interface OutgoingRow {
	id: string;
	account_id: string;
	from_address: string;
	subject: string;
	sent: string;
	recipients_json: string;
	in_reply_to: string | null;
	thread_id: string;
	/** Coarse, as the first schema allows it (see storedStatus); the record's status is read from its recipients. */
	status: StoredStatus;
	last_error: string | null;
	attempts: number;
}

export function toOutgoingRecord(row: OutgoingRow): OutgoingRecord {
	// Rows recorded before cc and bcc existed name no field: all their recipients were To recipients.
	// Those recorded before notes, return paths and reports existed have none.
	const stored = JSON.parse(row.recipients_json) as (Pick<OutgoingRecipient, 'address' | 'route' | 'status' | 'error'> &
		Partial<OutgoingRecipient>)[];
	const recipients = stored.map((r): OutgoingRecipient => ({
		...r,
		field: r.field ?? 'to',
		note: r.note ?? null,
		returnPath: r.returnPath ?? null,
		statusCode: r.statusCode ?? null,
		diagnostic: r.diagnostic ?? null,
		reportingMta: r.reportingMta ?? null,
		bounceMessageId: r.bounceMessageId ?? null,
	}));
	const inField = (field: RecipientField) => recipients.filter((r) => r.field === field).map((r) => r.address);
	return {
		_id: row.id,
		threadId: row.thread_id,
		from: row.from_address,
		to: inField('to'),
		cc: inField('cc'),
		bcc: inField('bcc'),
		subject: row.subject,
		inReplyTo: row.in_reply_to,
		status: overallStatus(recipients),
		sent: row.sent,
		lastError: row.last_error,
		attempts: row.attempts,
		recipients,
	};
}

/** What the status column holds: the schema's first three states (a report's states fold into them). */
export type StoredStatus = 'queued' | 'delivered' | 'failed';

export function storedStatus(status: SendStatus): StoredStatus {
	if (status === 'queued' || status === 'failed') return status;
	return status === 'bounced' || status === 'complained' ? 'failed' : 'delivered';
}

/** Queued while any recipient is pending; then the worst of its recipients' states (failed first), else delivered. */
function overallStatus(recipients: OutgoingRecipient[]): SendStatus {
	for (const status of ['queued', 'failed', 'bounced', 'complained', 'deferred'] as const) {
		if (recipients.some((r) => r.status === status)) return status;
	}
	return 'delivered';
}

/** What an attempt's outcomes make of a sent message: its recipients' new states, its status and its last error. */
export interface Settled {
	recipients: OutgoingRecipient[];
	status: SendStatus;
	lastError: string | null;
}

/**
 * Applies the outcomes of an attempt to the recipients still pending. Those that failed for now are retried later, or fail
 * when `retrying` is false (retries used up).
 */
export function settledBy(record: OutgoingRecord, outcomes: Map<string, Outcome>, retrying: boolean): Settled {
	let lastError = record.lastError;
	const recipients = record.recipients.map((recipient): OutgoingRecipient => {
		if (recipient.status !== 'queued') return recipient;
		const outcome = outcomes.get(recipient.address) ?? { status: 'temporary', error: 'the relay reported nothing for this recipient' };
		if (outcome.status === 'delivered') return { ...recipient, status: 'delivered', error: null };
		lastError = outcome.error;
		if (outcome.status === 'permanent') return { ...recipient, status: 'failed', error: outcome.error };
		if (retrying) return { ...recipient, error: outcome.error };
		lastError = `gave up after ${record.attempts + 1} attempt${record.attempts ? 's' : ''}: ${outcome.error}`;
		return { ...recipient, status: 'failed', error: lastError };
	});
	return { recipients, status: overallStatus(recipients), lastError };
}

/**
 * What storing local copies for `addresses` makes of a sent message: those recipients delivered, and its status. The status
 * changes with them, so a reader never sees every recipient delivered while the message still reads as queued.
 */
export function deliveredTo(record: OutgoingRecord, addresses: string[]): Pick<Settled, 'recipients' | 'status'> {
	const recipients = record.recipients.map((recipient): OutgoingRecipient =>
		addresses.includes(recipient.address) ? { ...recipient, status: 'delivered', error: null } : recipient,
	);
	return { recipients, status: overallStatus(recipients) };
}

/**
 * What a delivery report makes of a sent message: the recipient's new state with the report's code, words and reporter,
 * and its status. A recipient still queued is left as it is (the relay has not taken it yet: the report is not about
 * this attempt), and so is one that failed (the relay refused it: no later report changes that).
 */
export function reportedBy(
	record: OutgoingRecord,
	address: string,
	report: DeliveryReport,
	bounceMessageId: string,
): Pick<Settled, 'recipients' | 'status'> {
	const recipients = record.recipients.map((recipient): OutgoingRecipient => {
		if (recipient.address !== address || recipient.status === 'queued' || recipient.status === 'failed') return recipient;
		const { status, statusCode, diagnostic, reportingMta } = report;
		return { ...recipient, status, statusCode, diagnostic, reportingMta, bounceMessageId };
	});
	return { recipients, status: overallStatus(recipients) };
}
