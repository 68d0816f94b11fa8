import type { Ingest } from '../ingest/ingest';
import type { Recipient } from '../mail/incoming-mail';
import type { Logger } from '../log';
import type { OutboxEntry } from '../store/store';
import type { OutgoingRecipient } from '../schemas/outgoing';
import { newId } from '../store/ids';

export interface TestAddressesOptions {
	/** --test-domain. */
	domain: string;
	ingest: Ingest;
	/** The mapping SMTP ingest uses: a return path resolves to the sent message's sender, as a report of it. */
	resolveRecipient: (address: string, domain: string) => Promise<Recipient>;
	log: Logger;
}

/** What each test address answers, and with what words: a bounce and a delay as Postfix writes them, a complaint as ARF. */
const ANSWERS: Record<string, { action: 'failed' | 'delayed'; status: string; diagnostic: string } | 'complaint'> = {
	bounce: {
		action: 'failed',
		status: '5.1.1',
		diagnostic: '550 5.1.1 <%s>: Recipient address rejected: User unknown (a Mailroom test address)',
	},
	defer: { action: 'delayed', status: '4.2.0', diagnostic: '451 4.2.0 <%s>: Mailbox temporarily unavailable (a Mailroom test address)' },
	complaint: 'complaint',
};

/**
 * The addresses of --test-domain, for testing how an app handles what a remote server does: mail sent through Mailroom to
 * bounce@ comes back as a bounce (5.1.1), to defer@ as a delay (4.2.0), to complaint@ as a spam complaint (RFC 5965);
 * other addresses of the domain take mail and say nothing. Each report is sent to the recipient's return path, as a
 * remote server would send it, and goes the way a real one goes: into the sender's inbox, updating the sent message.
 */
export class TestAddresses {
	constructor(private readonly options: TestAddressesOptions) {}

	async answer(entry: OutboxEntry, recipient: OutgoingRecipient): Promise<void> {
		const answer = ANSWERS[recipient.address.slice(0, recipient.address.lastIndexOf('@')).toLowerCase()];
		if (!answer || !recipient.returnPath) return;
		const { domain, ingest, resolveRecipient, log } = this.options;
		const returnPath = recipient.returnPath;
		try {
			const report = answer === 'complaint' ? this.complaint(entry, recipient.address) : this.report(entry, recipient.address, answer);
			const raw = Buffer.from(new SharedArrayBuffer(Buffer.byteLength(report)));
			raw.write(report);
			await ingest.store({
				raw,
				recipients: [await resolveRecipient(returnPath, returnPath.slice(returnPath.lastIndexOf('@') + 1))],
				ip: '127.0.0.1',
				via: '127.0.0.1',
				rtls: false,
			});
		} catch (err) {
			log.warn({ err, id: entry.record._id, recipient: recipient.address, domain }, 'the answer of a test address could not be stored');
		}
	}

	/** A delivery status notification (RFC 3464) as Postfix sends it. */
	private report(
		entry: OutboxEntry,
		address: string,
		{ action, status, diagnostic }: { action: string; status: string; diagnostic: string },
	) {
		const { domain } = this.options;
		const boundary = `mailroom-report-${newId()}`;
		const failed = action === 'failed';
		return lines(
			...this.reportHeaders(entry, address, {
				from: `MAILER-DAEMON@${domain} (Mail Delivery System)`,
				subject: failed ? 'Undelivered Mail Returned to Sender' : 'Delayed Mail (still being retried)',
				reportType: 'delivery-status',
				boundary,
			}),
			`--${boundary}`,
			'Content-Description: Notification',
			'Content-Type: text/plain; charset=us-ascii',
			'',
			`This is the mail system at host ${domain}.`,
			'',
			failed
				? 'I am sorry to have to inform you that your message could not be delivered to one or more recipients.'
				: 'THIS IS A WARNING ONLY. YOU DO NOT NEED TO RESEND YOUR MESSAGE.',
			'',
			`<${address}>: ${diagnostic.replace('%s', address)}`,
			'',
			`--${boundary}`,
			'Content-Description: Delivery report',
			'Content-Type: message/delivery-status',
			'',
			`Reporting-MTA: dns; ${domain}`,
			'',
			`Final-Recipient: rfc822; ${address}`,
			`Action: ${action}`,
			`Status: ${status}`,
			`Remote-MTA: dns; ${domain}`,
			`Diagnostic-Code: smtp; ${diagnostic.replace('%s', address)}`,
			'',
			...this.originalHeadersPart(entry, address, boundary),
		);
	}

	/** A spam complaint in the Abuse Reporting Format (RFC 5965), as mailbox providers' feedback loops send it. */
	private complaint(entry: OutboxEntry, address: string) {
		const { domain } = this.options;
		const boundary = `mailroom-feedback-${newId()}`;
		const returnPath = returnPathOf(entry, address);
		return lines(
			...this.reportHeaders(entry, address, {
				from: `feedback-loop@${domain}`,
				subject: 'Complaint about a message you sent',
				reportType: 'feedback-report',
				boundary,
			}),
			`--${boundary}`,
			'Content-Type: text/plain; charset=us-ascii',
			'',
			`This is an email abuse report for a message sent to ${address} (a Mailroom test address).`,
			'',
			`--${boundary}`,
			'Content-Type: message/feedback-report',
			'',
			'Feedback-Type: abuse',
			'User-Agent: Mailroom-test-address/1.0',
			'Version: 1',
			`Original-Mail-From: <${returnPath}>`,
			`Original-Rcpt-To: <${address}>`,
			`Reported-Domain: ${entry.record.from.slice(entry.record.from.lastIndexOf('@') + 1)}`,
			'',
			...this.originalHeadersPart(entry, address, boundary),
		);
	}

	/** The header of a report sent back to the recipient's return path (a multipart/report of `reportType`), and its blank line. */
	private reportHeaders(
		entry: OutboxEntry,
		address: string,
		{ from, subject, reportType, boundary }: { from: string; subject: string; reportType: string; boundary: string },
	): string[] {
		return [
			`From: ${from}`,
			`To: ${returnPathOf(entry, address)}`,
			`Subject: ${subject}`,
			`Date: ${new Date().toUTCString()}`,
			`Message-ID: <${newId()}@${this.options.domain}>`,
			'Auto-Submitted: auto-replied',
			'MIME-Version: 1.0',
			`Content-Type: multipart/report; report-type=${reportType}; boundary="${boundary}"`,
			'',
		];
	}

	/** The last part of a report: the headers of the message it is about, then the report's closing boundary. */
	private originalHeadersPart(entry: OutboxEntry, address: string, boundary: string): string[] {
		return [
			`--${boundary}`,
			'Content-Description: Undelivered Message Headers',
			'Content-Type: text/rfc822-headers',
			'',
			`From: ${entry.record.from}`,
			`To: ${address}`,
			`Subject: ${entry.record.subject.replace(/[\r\n]+/g, ' ')}`,
			'',
			`--${boundary}--`,
			'',
		];
	}
}

const lines = (...all: string[]) => all.join('\r\n');

const returnPathOf = (entry: OutboxEntry, address: string) => entry.record.recipients.find((r) => r.address === address)!.returnPath;
