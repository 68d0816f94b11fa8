import type Mail from 'nodemailer/lib/mailer';
import type { OutgoingAttachment } from '../schemas/outgoing';
import { SendError } from './send-error';
import { pacedBase64 } from './paced-content';

/** Standard base64 (RFC 4648 section 4), padded; whole-string tests, so a large one costs one linear pass. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The attachments of a send, their base64 checked, as the composer takes them: decoded, in pieces when large (pacedBase64). */
export function decodeAttachments(attachments: OutgoingAttachment[] = []): Mail.Attachment[] {
	return attachments.map((attachment, i) => {
		if (attachment.content.length % 4 !== 0 || !BASE64.test(attachment.content)) {
			throw new SendError(
				400,
				`attachments[${i}].content is not base64 (RFC 4648: A-Z, a-z, 0-9, + and /, padded with = to a multiple of 4 characters, no line breaks)`,
				`attachments[${i}].content`,
			);
		}
		return {
			filename: attachment.filename,
			contentType: attachment.contentType,
			content: pacedBase64(attachment.content),
			cid: attachment.contentId,
		};
	});
}
