import Type, { type TSchema } from 'typebox';
import type { HttpApp, HttpDeps } from '../http-deps';
import { requireAccount } from '../auth';
import { accessibleInbox, messageNotFound } from '../inbox-access';
import { MessageParams, errorResponses } from '../schemas';
import { FolderSchema, MessageSchema } from '../../schemas/message';
import { expects, refTo } from '../../schemas/shared';

/** The path parameters of one message, and one more. */
const withParam = <Name extends string, T extends TSchema>(name: Name, schema: T) =>
	Type.Object({ ...MessageParams.properties, ...({ [name]: schema } as { [K in Name]: T }) });

const LabelParams = withParam(
	'label',
	Type.String({ minLength: 1, maxLength: 64, description: 'URL-encoded label, e.g. business%20archive' }),
);
const LabelsResponse = Type.Object({ _id: Type.String(), labels: Type.Array(Type.String()) });

/** Labels, folder, read flag and star of a message; and the account's starred messages. */
export function messageStateRoutes(app: HttpApp, { addresses, messageState }: HttpDeps): void {
	app.put(
		'/api/addresses/:email/messages/:messageId/labels/:label',
		{
			schema: {
				summary: 'Add a label to a message (no change if it has it already)',
				params: LabelParams,
				response: { 200: LabelsResponse, ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request) => {
			const { address } = await accessibleInbox(request, addresses, request.params.email);
			const labels = await messageState.addLabel(address, request.params.messageId, request.params.label);
			if (!labels) throw messageNotFound(address, request.params.messageId);
			return { _id: request.params.messageId, labels };
		},
	);

	app.delete(
		'/api/addresses/:email/messages/:messageId/labels/:label',
		{
			schema: {
				summary: 'Remove a label from a message (no change if it does not have it)',
				params: LabelParams,
				response: { 200: LabelsResponse, ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request) => {
			const { address } = await accessibleInbox(request, addresses, request.params.email);
			const labels = await messageState.removeLabel(address, request.params.messageId, request.params.label);
			if (!labels) throw messageNotFound(address, request.params.messageId);
			return { _id: request.params.messageId, labels };
		},
	);

	app.put(
		'/api/addresses/:email/messages/:messageId/folder/:folder',
		{
			schema: {
				summary: 'Move a message to a folder',
				params: withParam('folder', FolderSchema),
				response: { 200: Type.Object({ _id: Type.String(), folder: FolderSchema }), ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request) => {
			const { address } = await accessibleInbox(request, addresses, request.params.email);
			if (!(await messageState.setFolder(address, request.params.messageId, request.params.folder)))
				throw messageNotFound(address, request.params.messageId);
			return { _id: request.params.messageId, folder: request.params.folder };
		},
	);

	app.put(
		'/api/addresses/:email/messages/:messageId/read/:read',
		{
			schema: {
				summary: 'Mark a message read (true) or unread (false)',
				params: withParam('read', Type.Boolean({ ...expects('true or false, for read or unread') })),
				response: { 200: Type.Object({ _id: Type.String(), read: Type.Boolean() }), ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request) => {
			const { address } = await accessibleInbox(request, addresses, request.params.email);
			if (!(await messageState.setRead(address, request.params.messageId, request.params.read)))
				throw messageNotFound(address, request.params.messageId);
			return { _id: request.params.messageId, read: request.params.read };
		},
	);

	app.put(
		'/api/addresses/:email/messages/:messageId/star',
		{
			schema: {
				summary: 'Star a message, or unstar it if starred. Starred mail is kept by retention; needs an API key',
				description: 'Starring sets savedBy to your account id; unstarring sets it back to null.',
				params: MessageParams,
				response: { 200: refTo(MessageSchema), ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request) => {
			const account = requireAccount(request);
			const { address } = await accessibleInbox(request, addresses, request.params.email);
			const record = await messageState.toggleStar(address, request.params.messageId, account.id);
			if (!record) throw messageNotFound(address, request.params.messageId);
			return record;
		},
	);

	app.put(
		'/api/addresses/:email/messages/:messageId/star/:starred',
		{
			schema: {
				summary:
					'Star a message (true) or unstar it (false); doing it again changes nothing. Starred mail is kept by retention; needs an API key',
				description:
					'Unlike PUT .../star, which toggles, this sets the star, so a retried request cannot undo itself. Starring sets savedBy to ' +
					'your account id (a message starred already keeps its savedBy); unstarring sets it to null.',
				params: withParam(
					'starred',
					Type.Boolean({ description: 'true: star; false: unstar', ...expects('true or false, to star or unstar') }),
				),
				response: { 200: refTo(MessageSchema), ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request) => {
			const account = requireAccount(request);
			const { address } = await accessibleInbox(request, addresses, request.params.email);
			const record = await messageState.setStar(address, request.params.messageId, account.id, request.params.starred);
			if (!record) throw messageNotFound(address, request.params.messageId);
			return record;
		},
	);

	app.get(
		'/api/addresses/starred/messages',
		{
			schema: {
				summary: 'Messages starred by your account, newest first',
				querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }) }),
				response: { 200: Type.Array(refTo(MessageSchema)), ...errorResponses(400, 401, 429) },
			},
		},
		async (request) => messageState.starred(requireAccount(request).id, request.query.limit),
	);
}
