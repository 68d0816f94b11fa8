import { MAX_HEADER_NAME } from '../schemas/outgoing';
import { SendError } from './send-error';

/** Headers Mailroom writes from the body's own fields or the transport: a second copy would contradict them. */
const SET_BY_MAILROOM = new Set(
	[
		'From',
		'To',
		'Cc',
		'Bcc',
		'Reply-To',
		'Subject',
		'Date',
		'Message-ID',
		'In-Reply-To',
		'References',
		'MIME-Version',
		'Content-Type',
		'Content-Transfer-Encoding',
		'Sender',
		'Return-Path',
		'DKIM-Signature',
	].map((name) => name.toLowerCase()),
);

/** RFC 5322 field-name: printable US-ASCII but the colon. */
const FIELD_NAME = /^[!-9;-~]+$/;

/** The extra headers of a send, checked: real field names, none Mailroom sets itself, no line breaks (count and lengths: the schema). */
export function checkExtraHeaders(headers: Record<string, string> = {}): Record<string, string> {
	for (const [name, value] of Object.entries(headers)) {
		if (!FIELD_NAME.test(name) || name.length > MAX_HEADER_NAME) {
			throw new SendError(
				400,
				`headers has ${JSON.stringify(name)}, which is not a header name (RFC 5322: 1 to ${MAX_HEADER_NAME} printable ASCII characters, no space, colon or line break)`,
				'headers',
			);
		}
		if (SET_BY_MAILROOM.has(name.toLowerCase())) {
			throw new SendError(
				400,
				`headers may not set ${name}: Mailroom sets it itself; use the fields from, to, cc, bcc, replyTo, subject, inReplyTo and attachments instead`,
				`headers.${name}`,
			);
		}
		if (/[\r\n]/.test(value))
			throw new SendError(400, `headers.${name} contains a line break (CR or LF); a header value may not`, `headers.${name}`);
	}
	return headers;
}
