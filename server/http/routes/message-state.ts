import type { FastifyInstance } from 'fastify';
import type { HttpDeps } from '../http-deps';
import { requireAccount } from '../auth';
import { accessibleInbox, messageNotFound } from '../inbox-access';
import { emailAndMessageParams, errorResponses } from '../schemas';
import { FOLDERS, type Folder } from '../../store/message-state';

type MessageParams = { email: string; messageId: string };

const withParam = (name: string, schema: object) =>
	({
		...emailAndMessageParams,
		properties: { ...emailAndMessageParams.properties, [name]: schema },
		required: [...emailAndMessageParams.required, name],
	}) as const;

const labelParams = withParam('label', { type: 'string', minLength: 1, maxLength: 64, description: 'URL-encoded label, e.g. business%20archive' });
const labelsResponse = {
	type: 'object',
	properties: { _id: { type: 'string' }, labels: { type: 'array', items: { type: 'string' } } },
	required: ['_id', 'labels'],
} as const;

/** Labels, folder, read flag and star of a message; and the account's starred messages. */
export async function messageStateRoutes(app: FastifyInstance, { addresses, messageState }: HttpDeps): Promise<void> {
	app.put<{ Params: MessageParams & { label: string } }>(
		'/api/addresses/:email/messages/:messageId/labels/:label',
		{
			schema: {
				summary: 'Add a label to a message (no change if it has it already)',
				params: labelParams,
				response: { 200: labelsResponse, ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request) => {
			const { address } = accessibleInbox(request, addresses, request.params.email);
			const labels = messageState.addLabel(address, request.params.messageId, request.params.label);
			if (!labels) throw messageNotFound(address, request.params.messageId);
			return { _id: request.params.messageId, labels };
		},
	);

	app.delete<{ Params: MessageParams & { label: string } }>(
		'/api/addresses/:email/messages/:messageId/labels/:label',
		{
			schema: {
				summary: 'Remove a label from a message (no change if it does not have it)',
				params: labelParams,
				response: { 200: labelsResponse, ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request) => {
			const { address } = accessibleInbox(request, addresses, request.params.email);
			const labels = messageState.removeLabel(address, request.params.messageId, request.params.label);
			if (!labels) throw messageNotFound(address, request.params.messageId);
			return { _id: request.params.messageId, labels };
		},
	);

	app.put<{ Params: MessageParams & { folder: Folder } }>(
		'/api/addresses/:email/messages/:messageId/folder/:folder',
		{
			schema: {
				summary: 'Move a message to a folder',
				params: withParam('folder', { type: 'string', enum: FOLDERS }),
				response: {
					200: { type: 'object', properties: { _id: { type: 'string' }, folder: { type: 'string', enum: FOLDERS } }, required: ['_id', 'folder'] },
					...errorResponses(400, 401, 403, 404, 429),
				},
			},
		},
		async (request) => {
			const { address } = accessibleInbox(request, addresses, request.params.email);
			if (!messageState.setFolder(address, request.params.messageId, request.params.folder)) throw messageNotFound(address, request.params.messageId);
			return { _id: request.params.messageId, folder: request.params.folder };
		},
	);

	app.put<{ Params: MessageParams & { read: boolean } }>(
		'/api/addresses/:email/messages/:messageId/read/:read',
		{
			schema: {
				summary: 'Mark a message read (true) or unread (false)',
				params: withParam('read', { type: 'boolean' }),
				response: {
					200: { type: 'object', properties: { _id: { type: 'string' }, read: { type: 'boolean' } }, required: ['_id', 'read'] },
					...errorResponses(400, 401, 403, 404, 429),
				},
			},
		},
		async (request) => {
			const { address } = accessibleInbox(request, addresses, request.params.email);
			if (!messageState.setRead(address, request.params.messageId, request.params.read)) throw messageNotFound(address, request.params.messageId);
			return { _id: request.params.messageId, read: request.params.read };
		},
	);

	app.put<{ Params: MessageParams }>(
		'/api/addresses/:email/messages/:messageId/star',
		{
			schema: {
				summary: 'Star a message, or unstar it if starred. Starred mail is kept by retention; needs an API key',
				description: 'Starring sets savedBy to your account id; unstarring sets it back to null.',
				params: emailAndMessageParams,
				response: { 200: { $ref: 'Message#' }, ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request) => {
			const account = requireAccount(request);
			const { address } = accessibleInbox(request, addresses, request.params.email);
			const record = messageState.toggleStar(address, request.params.messageId, account.id);
			if (!record) throw messageNotFound(address, request.params.messageId);
			return record;
		},
	);

	app.get<{ Querystring: { limit: number } }>(
		'/api/addresses/starred/messages',
		{
			schema: {
				summary: 'Messages starred by your account, newest first',
				querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } } },
				response: { 200: { type: 'array', items: { $ref: 'Message#' } }, ...errorResponses(400, 401, 429) },
			},
		},
		async (request) => messageState.starred(requireAccount(request).id, request.query.limit),
	);
}
