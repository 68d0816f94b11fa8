import { Readable } from 'node:stream';
import { create as contentDisposition } from 'content-disposition';
import Type from 'typebox';
import type { HttpApp, HttpDeps } from '../http-deps';
import type { AttachmentStore } from '../../store/store';
import { notFound } from '../errors';
import { accessibleInbox, messageNotFound } from '../inbox-access';
import { MessageParams, RawBody, errorResponses } from '../schemas';
import { AttachmentMetaSchema } from '../../schemas/message';
import { refTo } from '../../schemas/shared';

/**
 * Attachments up to this size are sent in one piece; larger ones are read from the database a piece at a time.
 * SQLite's substr() loads the whole blob for each piece, so pieces are large: for 25 MB, 4 MB pieces cost about
 * 1.5 times one whole read (1 MB pieces about 10 times) while holding at most 4 MB in memory.
 */
export const ATTACHMENT_CHUNK = 4 * 1024 * 1024;

/** The content as a stream of pieces, so a large attachment never sits whole in memory. */
function attachmentStream(attachments: AttachmentStore, checksum: string, length: number): Readable {
	return Readable.from(
		(async function* pieces() {
			for (let offset = 0; offset < length; offset += ATTACHMENT_CHUNK) {
				const piece = await attachments.read(checksum, offset, ATTACHMENT_CHUNK);
				if (piece.length === 0) return; // deleted meanwhile
				yield piece;
			}
		})(),
	);
}

/**
 * The name a download is saved under: the file name's last path segment, without control characters. The sender chose
 * the name, and a client that saves under it as given (curl -OJ, scripts) must not be sent outside its folder by
 * `../../tmp/x` or `C:\Windows\x`, nor shown `invoice\u202Efdp.exe` as `invoiceexe.pdf` (bidirectional controls, which
 * reorder what a file manager shows, go too). Nothing usable left (".."): the checksum.
 */
function downloadName(fileName: string | null, checksum: string): string {
	const lastSegment = (fileName ?? '').split(/[/\\]/).pop()!;
	// eslint-disable-next-line no-control-regex -- control characters are what is removed
	const base = lastSegment.replace(/[\u0000-\u001f\u007f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '').trim();
	return base === '' || base === '.' || base === '..' ? checksum : base;
}

export function attachmentRoutes(app: HttpApp, { addresses, attachments }: HttpDeps): void {
	app.get(
		'/api/addresses/:email/messages/:messageId/attachments',
		{
			schema: {
				summary: 'The attachments of a message (metadata)',
				params: MessageParams,
				response: { 200: Type.Array(refTo(AttachmentMetaSchema)), ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request) => {
			const { address } = await accessibleInbox(request, addresses, request.params.email);
			const list = await attachments.list(address, request.params.messageId);
			if (!list) throw messageNotFound(address, request.params.messageId);
			return list;
		},
	);

	app.get(
		'/api/addresses/:email/messages/:messageId/attachments/:identifier',
		{
			schema: {
				summary: 'Download one attachment, with its own Content-Type and file name',
				description: 'The identifier is the MD5 checksum, the Content-ID (cid) or the file name of the attachment.',
				params: Type.Object({ ...MessageParams.properties, identifier: Type.String({ minLength: 1, maxLength: 512 }) }),
				produces: ['application/octet-stream'],
				response: { 200: RawBody({ format: 'binary' }), ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request, reply) => {
			const { address } = await accessibleInbox(request, addresses, request.params.email);
			const { messageId, identifier } = request.params;
			if (!(await attachments.list(address, messageId))) throw messageNotFound(address, messageId);
			const meta = await attachments.find(address, messageId, identifier);
			if (!meta) throw notFound(`Message ${messageId} has no attachment ${identifier}`);
			const body =
				meta.length <= ATTACHMENT_CHUNK
					? await attachments.read(meta.checksum, 0, meta.length)
					: attachmentStream(attachments, meta.checksum, meta.length);
			return (
				reply
					.type(meta.contentType)
					.header('content-length', meta.length)
					// Always a download, never rendered on the API's origin: an attachment may be HTML written by anyone.
					.header('content-disposition', contentDisposition(downloadName(meta.fileName, meta.checksum)))
					.header('content-security-policy', 'sandbox')
					.header('x-content-type-options', 'nosniff')
					.send(body)
			);
		},
	);
}
