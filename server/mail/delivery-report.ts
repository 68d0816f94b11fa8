import type { ParsedMail } from './parsed-mail';
import { bodySample } from '../bytes/message-body';
import { isSpooled } from '../bytes/spooled-bytes';

/** What a delivery report (a bounce) says of one recipient. */
export interface DeliveryReport {
	/** delivered (2.x.x, Action delivered/relayed/expanded), deferred (4.x.x, delayed), bounced (5.x.x, failed), complained (ARF). */
	status: 'delivered' | 'deferred' | 'bounced' | 'complained';
	/** RFC 3463 status code, e.g. 5.1.1; null when the report gives none. */
	statusCode: string | null;
	diagnostic: string | null;
	reportingMta: string | null;
}

const ENHANCED_CODE = /\b([245])\.\d{1,3}\.\d{1,3}\b/;
const REPLY_CODE = /(?:^|\s)([245])\d\d[ -]/m;
const BOUNCE_SUBJECT =
	/undeliver|delivery (status notification|failure|failed|has failed|problem)|returned mail|failure notice|mail delivery failed|delayed mail|not delivered/i;
const DAEMON = /^(mailer-daemon|postmaster|mail-daemon|mailerdaemon)@/i;

/**
 * What a message that came back to a return path says of the recipient `address`. Reads RFC 3464 reports
 * (multipart/report; report-type=delivery-status: the per-recipient fields of its message/delivery-status part, which
 * mailparser appends to the text), RFC 5965 feedback reports (a complaint), and the plain-text bounces some servers
 * still send (an old Exim, qmail): a status code in the text of a message a mail system sent. Undefined for anything
 * else (an out-of-office answer to the return path, say).
 */
export function readDeliveryReport(parsed: ParsedMail, address: string): DeliveryReport | undefined {
	const header = (name: string) => parsed.headers.find(([key]) => key === name)?.[1];
	const contentType = (header('content-type') ?? '').toLowerCase();
	const text = [bodySample(parsed.text), ...parsed.attachments.map(attachmentText)].join('\n\n');
	const blocks = fieldBlocks(text);
	if (/report-type="?feedback-report/.test(contentType) || blocks.some((block) => block.has('feedback-type'))) {
		const feedback = blocks.find((block) => block.has('feedback-type'));
		return { status: 'complained', statusCode: null, diagnostic: feedback?.get('feedback-type') ?? 'abuse', reportingMta: null };
	}
	const reportingMta = blocks.find((block) => block.has('reporting-mta'))?.get('reporting-mta') ?? null;
	const recipients = blocks.filter((block) => block.has('action') && (block.has('final-recipient') || block.has('status')));
	const named = recipients.find((block) => [block.get('final-recipient'), block.get('original-recipient')].some((r) => names(r, address)));
	// The return path names the recipient already: a report of one recipient under another name (a forward) is its.
	const block = named ?? (recipients.length === 1 ? recipients[0] : undefined);
	if (block) return fromFields(block, reportingMta);
	return plainTextBounce(parsed, text, address);
}

/** A per-recipient block of a DSN: Action and Status say what happened. */
function fromFields(block: Map<string, string>, reportingMta: string | null): DeliveryReport | undefined {
	const action = (block.get('action') ?? '').toLowerCase();
	const statusCode = ENHANCED_CODE.exec(block.get('status') ?? '')?.[0] ?? null;
	const diagnostic = block.get('diagnostic-code') ?? null;
	const klass = statusCode?.[0];
	let status: DeliveryReport['status'] | undefined;
	if (action === 'failed' || klass === '5') status = 'bounced';
	else if (action === 'delayed' || klass === '4') status = 'deferred';
	else if (['delivered', 'relayed', 'expanded'].includes(action) || klass === '2') status = 'delivered';
	return status && { status, statusCode, diagnostic, reportingMta };
}

/**
 * A bounce without a delivery-status part: only from a mail system (its sender, its subject, or X-Failed-Recipients
 * say so), and only with a status code or an SMTP reply in its text (5: bounced; 4: deferred).
 */
function plainTextBounce(parsed: ParsedMail, text: string, address: string): DeliveryReport | undefined {
	const failed = parsed.headers.some(([key]) => key === 'x-failed-recipients');
	const fromDaemon = parsed.from.some((from) => DAEMON.test(from.address ?? ''));
	if (!failed && !fromDaemon && !BOUNCE_SUBJECT.test(parsed.subject)) return undefined;
	// The reply is usually after the recipient's address; else anywhere.
	const at = text.toLowerCase().indexOf(address.toLowerCase());
	const after = at < 0 ? text : text.slice(at);
	const line = after.split('\n').find((candidate) => ENHANCED_CODE.test(candidate) || REPLY_CODE.test(candidate));
	if (!line) return undefined;
	const statusCode = ENHANCED_CODE.exec(line)?.[0] ?? null;
	const klass = statusCode?.[0] ?? REPLY_CODE.exec(line)![1];
	if (klass === '2') return undefined;
	return { status: klass === '5' ? 'bounced' : 'deferred', statusCode, diagnostic: line.trim(), reportingMta: null };
}

/** Whether a recipient field (`rfc822; bob@example.org`) names `address`. */
function names(field: string | undefined, address: string): boolean {
	if (!field) return false;
	const value = field.includes(';') ? field.slice(field.indexOf(';') + 1) : field;
	return value.trim().replace(/^<|>$/g, '').toLowerCase() === address.toLowerCase();
}

/** A small attachment's text (a report part some parsers leave as an attachment); nothing for a large or spooled one. */
function attachmentText(attachment: ParsedMail['attachments'][number]): string {
	if (!/^message\/(global-)?(delivery-status|feedback-report)/i.test(attachment.contentType)) return '';
	if (isSpooled(attachment.content) || attachment.content.byteLength > 64 * 1024) return '';
	return Buffer.from(attachment.content).toString('utf8');
}

/** The blocks of header-like fields of a text (separated by blank lines; folded lines unfolded), lower-case names. */
function fieldBlocks(text: string): Map<string, string>[] {
	const blocks: Map<string, string>[] = [];
	for (const chunk of text.replace(/\r\n/g, '\n').split(/\n[ \t]*\n/)) {
		const fields = new Map<string, string>();
		let last: string | undefined;
		for (const line of chunk.split('\n')) {
			const field = /^([A-Za-z][A-Za-z0-9-]*):\s*(.*)$/.exec(line);
			if (field) {
				last = field[1].toLowerCase();
				if (!fields.has(last)) fields.set(last, field[2].trim());
			} else if (last && /^[ \t]/.test(line)) fields.set(last, `${fields.get(last)} ${line.trim()}`);
			else last = undefined;
		}
		if (fields.size) blocks.push(fields);
	}
	return blocks;
}
