import type { OutgoingRecipient, OutgoingRecord, RecipientField, SendStatus } from '../schemas/outgoing';
import type { Outcome } from './store';

/** A row of outgoing_messages, as either engine reads it. */
export interface OutgoingRow {
	id: string;
	from_address: string;
	subject: string;
	sent: string;
	recipients_json: string;
	in_reply_to: string | null;
	thread_id: string;
	status: SendStatus;
	last_error: string | null;
	attempts: number;
}

export function toOutgoingRecord(row: OutgoingRow): OutgoingRecord {
	// Rows recorded before cc and bcc existed name no field: all their recipients were To recipients.
	// Those recorded before notes existed have none.
	const stored = JSON.parse(row.recipients_json) as (Omit<OutgoingRecipient, 'field' | 'note'> & {
		field?: RecipientField;
		note?: string | null;
	})[];
	const recipients = stored.map((r): OutgoingRecipient => ({ ...r, field: r.field ?? 'to', note: r.note ?? null }));
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
		status: row.status,
		sent: row.sent,
		lastError: row.last_error,
		attempts: row.attempts,
		recipients,
	};
}

/** Queued while any recipient is pending; then delivered only if every recipient was. */
function overallStatus(recipients: OutgoingRecipient[]): SendStatus {
	if (recipients.some((r) => r.status === 'queued')) return 'queued';
	return recipients.every((r) => r.status === 'delivered') ? 'delivered' : 'failed';
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
