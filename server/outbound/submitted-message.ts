import { flattenAddresses, withoutNul } from '../parse/parse-message';
import { headerDecoder, type HeaderLine } from '../parse/header-decoder';
import type { AddressObject as MpAddressObject } from 'mailparser';
import type { RecipientField } from '../schemas/outgoing';
import { SendError } from './send-error';
import { authorAddresses, isAuthorField } from './author-fields';

/**
 * The header of a message an account submits over SMTP (RFC 6409) is read for what the checks and Sent mail need: its
 * From, To, Cc and Subject. The message goes out as the client wrote it, but for what a submission server adds: a
 * Message-ID and a Date when it has none (RFC 6409 sections 8.2 and 8.3), and no Bcc or Resent-Bcc header, so that no copy
 * names the blind recipients (as the API's messages never do; Postfix removes them too).
 */

/** Header fields that name blind copies, never sent on. */
const BLIND_FIELDS = new Set(['bcc', 'resent-bcc']);

/** A header block larger than this is refused (mailparser's own limit on a MIME part's header). */
const MAX_HEADER_BYTES = 1024 * 1024;
/** Address fields longer than this together are refused: address parsing costs microseconds per byte, on the event loop. */
const MAX_ADDRESS_HEADER_BYTES = 16 * 1024;
const ADDRESS_FIELDS = new Set(['from', 'to', 'cc', 'sender', 'resent-from', 'resent-sender']);
/** What is decoded: the addresses, and the subject for Sent mail. */
const READ_FIELDS = new Set([...ADDRESS_FIELDS, 'subject']);

/** The end of the header block: the line break of its last field, then the empty line. */
const HEADER_END = /(\r?\n)\r?\n/;

/** The length of the header fields of a message (each with its line break), as far as the empty line. */
function headerLength(head: string, rawLength: number): number {
	// A message that starts with an empty line has no header at all.
	if (/^\r?\n/.test(head)) return 0;
	const end = HEADER_END.exec(head);
	return end ? end.index + end[1].length : rawLength;
}

export class SubmittedMessage {
	private constructor(
		/** The header fields as sent, each with its line break, Bcc removed. */
		private readonly fields: string[],
		/** The empty line and the body, as sent. */
		private readonly rest: Buffer,
		/** Lower-cased addresses of the From header. */
		readonly from: string[],
		/** Every address the message says wrote or sent it (From, Sender, Resent-From, Resent-Sender), as either reading finds them. */
		readonly authors: string[],
		private readonly to: Set<string>,
		private readonly cc: Set<string>,
		readonly subject: string,
		private readonly hasMessageId: boolean,
		private readonly hasDate: boolean,
	) {}

	/** Reads the header of `raw`; refuses (400) a message without exactly one From header, or with too large a header. */
	static read(raw: Buffer): SubmittedMessage {
		const head = raw.toString('latin1', 0, Math.min(raw.length, MAX_HEADER_BYTES + 4));
		const length = headerLength(head, raw.length);
		if (length > MAX_HEADER_BYTES) throw new SendError(400, `The message's header is larger than ${MAX_HEADER_BYTES} bytes`);
		// Each field with its line break; a line that starts with a blank continues the field before it.
		const fields = head
			.slice(0, length)
			.split(/(?<=\n)(?![ \t])/)
			.filter(Boolean);
		const lines: HeaderLine[] = fields.map((field) => ({
			key: field
				.slice(0, Math.max(0, field.indexOf(':')))
				.trim()
				.toLowerCase(),
			line: field,
		}));
		const count = (key: string) => lines.filter((line) => line.key === key).length;
		const read = lines.filter((line) => READ_FIELDS.has(line.key));
		const addressBytes = read.reduce((bytes, line) => bytes + (ADDRESS_FIELDS.has(line.key) ? line.line.length : 0), 0);
		if (addressBytes > MAX_ADDRESS_HEADER_BYTES) {
			throw new SendError(
				400,
				`The message's address headers (From, Sender, To, Cc, Resent-From, Resent-Sender) are longer than ${MAX_ADDRESS_HEADER_BYTES} bytes together`,
			);
		}
		if (count('from') !== 1) {
			throw new SendError(400, `The message has ${count('from') || 'no'} From headers; it needs exactly one, naming its sender`);
		}
		if (count('sender') > 1) throw new SendError(400, `The message has ${count('sender')} Sender headers; it may have one`);
		// Under RFC 5322's grammar first: a field a lenient reader and a strict one would read differently is refused here.
		const strictAuthors = lines.flatMap(({ key, line }) => (isAuthorField(key) ? authorAddresses(key, line) : []));

		const headers = headerDecoder.processHeaders(read.map(({ key, line }) => ({ key, line: line.replace(/\r?\n$/, '') })));
		const addresses = (key: string) => flattenAddresses(headers.get(key) as MpAddressObject | MpAddressObject[] | undefined);
		const from = addresses('from').map((entry) => entry.address);
		if (from.length === 0 || from.includes('')) throw new SendError(400, 'The From header of the message names no valid address');
		const all = (list: { address: string }[]) => new Set(list.map((entry) => entry.address));
		return new SubmittedMessage(
			// Blind copies stay blind: Bcc and Resent-Bcc are removed, as Postfix does.
			fields.filter((_field, i) => !BLIND_FIELDS.has(lines[i].key)),
			raw.subarray(length),
			from,
			[...new Set([...from, ...strictAuthors])],
			all(addresses('to')),
			all(addresses('cc')),
			withoutNul((headers.get('subject') as string | undefined) ?? ''),
			count('message-id') > 0,
			count('date') > 0,
		);
	}

	/** The field of the message that names a recipient of the envelope: To, Cc, or none (Bcc). */
	fieldOf(address: string): RecipientField {
		return this.to.has(address) ? 'to' : this.cc.has(address) ? 'cc' : 'bcc';
	}

	/** The message as it goes out: what the client sent, with a Message-ID and a Date when it had none, and no Bcc header. */
	asSent(messageId: string, sent: Date): Buffer {
		const added = [
			...(this.hasMessageId ? [] : [`Message-ID: ${messageId}\r\n`]),
			// RFC 5322 3.3: "Wed, 25 Nov 2026 00:01:46 +0000".
			...(this.hasDate ? [] : [`Date: ${sent.toUTCString().replace(/GMT$/, '+0000')}\r\n`]),
		];
		return Buffer.concat([Buffer.from([...added, ...this.fields].join(''), 'latin1'), this.rest]);
	}
}
