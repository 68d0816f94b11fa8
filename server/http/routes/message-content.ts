import type { FastifyReply, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import type { HttpApp, HttpDeps } from '../http-deps';
import type { MessageContent } from '../../mail/message-content';
import { accessibleInbox, messageNotFound } from '../inbox-access';
import { dirtyHtmlBody, storedBody } from '../render/stored-body';
import { MessageParams, RawBody, errorResponses } from '../schemas';
import { htmlFromText, sanitizedBodyPolicy } from '../render/html-body';
import { HtmlSanitizer } from '../render/html-sanitizer';
import { inlineImages, INLINE_IMAGE_MAX_BYTES, INLINE_IMAGES_MAX_BYTES } from '../render/inline-images';
import { decodedHeaderValue } from '../../parse/header-decoder';

/** A request for the content of one message, maybe as a download. */
type ContentRequest = FastifyRequest & { params: Static<typeof MessageParams>; query: { download?: 1 } };

/** Response header of /api/body: how many remote images were left out (0 with images=1), so a reader can offer to show them. */
export const REMOTE_IMAGES_BLOCKED_HEADER = 'mailroom-remote-images-blocked';

const headerFormat = (description?: string) => Type.Optional(Type.Enum(['json', 'json-ordered', 'plain'], { description }));

const download = Type.Optional(Type.Literal(1, { description: '1: send as a file download (Content-Disposition: attachment)' }));
const DownloadQuery = Type.Object({ download });

/** Header lines grouped by lower-case name, each with every value in order (Mailsac's default header format). */
function groupedHeaders(lines: [string, string][]): Record<string, string[]> {
	const grouped: Record<string, string[]> = {};
	for (const [name, value] of lines) (Object.hasOwn(grouped, name) ? grouped[name] : (grouped[name] = [])).push(value);
	return grouped;
}

/** The original message, its headers and its HTML, for one message of an accessible inbox. */
export function messageContentRoutes(app: HttpApp, { addresses, messages, attachments }: HttpDeps): void {
	const sanitizer = new HtmlSanitizer();
	app.addHook('onClose', () => sanitizer.close());

	async function contentOf(request: ContentRequest): Promise<MessageContent> {
		const { address } = await accessibleInbox(request, addresses, request.params.email);
		const content = await messages.content(address, request.params.messageId);
		if (!content) throw messageNotFound(address, request.params.messageId);
		return content;
	}

	function asDownload(request: ContentRequest, reply: FastifyReply, extension: string): void {
		if (request.query.download === 1)
			reply.header('content-disposition', `attachment; filename="${request.params.messageId}.${extension}"`);
	}

	app.get(
		'/api/raw/:email/:messageId',
		{
			schema: {
				summary: 'The original message as received (RFC 5322 source)',
				params: MessageParams,
				querystring: DownloadQuery,
				produces: ['message/rfc822'],
				response: { 200: RawBody({ format: 'binary' }), ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request, reply) => {
			const { address } = await accessibleInbox(request, addresses, request.params.email);
			const source = await messages.rawSource(address, request.params.messageId);
			if (!source) throw messageNotFound(address, request.params.messageId);
			asDownload(request, reply, 'eml');
			const { length, body } = storedBody(source);
			return reply.type('message/rfc822').header('content-length', length).send(body);
		},
	);

	app.get(
		'/api/addresses/:email/messages/:messageId/headers',
		{
			schema: {
				summary: 'The header lines of a message',
				description:
					'json (default): { name: [values...] } with lower-case names; json-ordered: [{ name, value }] in original order; ' +
					'plain: "name: value" lines as text. `?download=1` sends plain text as a file unless a format is asked for. ' +
					'`?decoded=1` gives each value unfolded with its RFC 2047 encoded words decoded (=?UTF-8?Q?…?= as the text it stands for).',
				params: MessageParams,
				querystring: Type.Object({
					download,
					decoded: Type.Optional(
						Type.Union([Type.Literal(0), Type.Literal(1)], {
							description: '1: values unfolded and RFC 2047-decoded; 0 (default): as sent',
						}),
					),
					messageHeadersFormat: headerFormat(),
					format: headerFormat('older name of messageHeadersFormat'),
				}),
				produces: ['application/json', 'text/plain'],
				response: {
					200: Type.Union(
						[
							Type.Record(Type.String(), Type.Array(Type.String())),
							Type.Array(Type.Object({ name: Type.String(), value: Type.String() })),
							Type.String(),
						],
						{ description: 'json: an object of string arrays; json-ordered: an array of { name, value }; plain: text' },
					),
					...errorResponses(400, 401, 403, 404, 429),
				},
			},
		},
		async (request, reply) => {
			const stored = (await contentOf(request)).headers;
			const headers =
				request.query.decoded === 1 ? stored.map(([name, value]) => [name, decodedHeaderValue(value)] as [string, string]) : stored;
			const format = request.query.messageHeadersFormat ?? request.query.format ?? (request.query.download === 1 ? 'plain' : 'json');
			asDownload(request, reply, 'headers.txt');
			if (format === 'plain')
				return reply.type('text/plain; charset=utf-8').send(headers.map(([name, value]) => `${name}: ${value}\r\n`).join(''));
			if (format === 'json-ordered') return headers.map(([name, value]) => ({ name, value }));
			return groupedHeaders(headers);
		},
	);

	app.get(
		'/api/body/:email/:messageId',
		{
			schema: {
				summary:
					'The HTML body, sanitised: no scripts, style sheets, forms or event handlers; inline styles and cid: images kept; remote images blocked unless images=1',
				description:
					'Inline `style` attributes are kept with their CSS checked (no url() but the images the reader may see, no expression(), no escapes). ' +
					`Images the HTML names with cid: are replaced by data: URLs of the message's own parts (each up to ${INLINE_IMAGE_MAX_BYTES / 1024 / 1024} MB, ` +
					`${INLINE_IMAGES_MAX_BYTES / 1024 / 1024} MB in all). The \`${REMOTE_IMAGES_BLOCKED_HEADER}\` response header counts the remote images left out. ` +
					'Mail without an HTML part gets a simple page showing its text.',
				params: MessageParams,
				querystring: Type.Object({
					download,
					images: Type.Union([Type.Literal(0), Type.Literal(1)], { default: 0, description: '1: keep remote (http/https) images' }),
				}),
				produces: ['text/html'],
				response: { 200: RawBody(), ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request, reply) => {
			const content = await contentOf(request);
			const html = await content.html();
			const remoteImages = request.query.images === 1;
			const page =
				html === null
					? { html: htmlFromText(await content.text()), remoteImagesBlocked: 0 }
					: await sanitizer.sanitize(html, {
							remoteImages,
							inlineImages: await inlineImages(html, await content.attachments(), (meta) =>
								attachments.read(meta.checksum, 0, meta.length),
							),
						});
			asDownload(request, reply, 'html');
			return reply
				.type('text/html; charset=utf-8')
				.header('content-security-policy', sanitizedBodyPolicy({ remoteImages }))
				.header(REMOTE_IMAGES_BLOCKED_HEADER, page.remoteImagesBlocked)
				.send(page.html);
		},
	);

	app.get(
		'/api/dirty/:email/:messageId',
		{
			schema: {
				summary: 'The HTML body exactly as received (not sanitised)',
				description:
					'Served with `Content-Security-Policy: sandbox`, so a browser opening it directly runs no script on the API origin. Mail without an HTML part gets a simple page showing its text.',
				params: MessageParams,
				querystring: DownloadQuery,
				produces: ['text/html'],
				response: { 200: RawBody(), ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request, reply) => {
			const { length, body } = await dirtyHtmlBody(await contentOf(request));
			asDownload(request, reply, 'html');
			return reply
				.type('text/html; charset=utf-8')
				.header('content-security-policy', 'sandbox')
				.header('content-length', length)
				.send(body);
		},
	);
}
