import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { enc, expectError } from '../../helpers/messages';
import { INBOXES, seedInboxes, type SeededInboxes } from '../../helpers/inboxes';

/** Every per-message route of the Messages and Attachments API, for the shared checks below. */
const ROUTES: { method: string; path: (email: string, id: string) => string; needsKey?: boolean }[] = [
	{ method: 'GET', path: (e, id) => `/api/addresses/${e}/messages/${id}` },
	{ method: 'GET', path: (e, id) => `/api/raw/${e}/${id}` },
	{ method: 'GET', path: (e, id) => `/api/addresses/${e}/messages/${id}/headers` },
	{ method: 'GET', path: (e, id) => `/api/body/${e}/${id}` },
	{ method: 'GET', path: (e, id) => `/api/dirty/${e}/${id}` },
	{ method: 'GET', path: (e, id) => `/api/addresses/${e}/messages/${id}/attachments` },
	{ method: 'GET', path: (e, id) => `/api/addresses/${e}/messages/${id}/attachments/note.txt` },
	{ method: 'PUT', path: (e, id) => `/api/addresses/${e}/messages/${id}/labels/work` },
	{ method: 'DELETE', path: (e, id) => `/api/addresses/${e}/messages/${id}/labels/work` },
	{ method: 'PUT', path: (e, id) => `/api/addresses/${e}/messages/${id}/folder/spam` },
	{ method: 'PUT', path: (e, id) => `/api/addresses/${e}/messages/${id}/read/true` },
	{ method: 'PUT', path: (e, id) => `/api/addresses/${e}/messages/${id}/star`, needsKey: true },
];

/** accessibleInbox and messageNotFound, as every message route uses them: authorisation, 404 and parameters. */
describe('message routes: authorisation, 404 and parameters', () => {
	let server: TestMailroom;
	let owner: SeededInboxes['owner'];
	let other: SeededInboxes['other'];
	let ids: SeededInboxes['ids'];
	const inboxes = INBOXES;

	beforeAll(async () => {
		server = await startTestMailroom();
		({ owner, other, ids } = await seedInboxes(server));
	});
	afterAll(() => server.stop());

	describe.each(ROUTES.map((route) => ({ ...route, name: route.path(':email', ':messageId') })))(
		'$method $name',
		({ method, path, needsKey }) => {
			it('serves a public inbox to anyone (with a key if the route needs one)', async () => {
				const response = await server.api(path(inboxes.public, ids.public), { method });
				if (needsKey) expectError(response, 401, /API key/);
				else expect(response.status).toBe(200);
				expect((await server.api(path(inboxes.public, ids.public), { method, key: other.key })).status).toBe(200);
			});

			it.each(['reserved', 'domain'] as const)('serves a private (%s) inbox only to its owner', async (kind) => {
				const url = path(enc(inboxes[kind]), ids[kind]);
				expectError(await server.api(url, { method }), 401);
				expectError(await server.api(url, { method, key: other.key }), 403, /another account/);
				expect((await server.api(url, { method, key: owner.key })).status).toBe(200);
			});

			it('answers 404 for an unknown message, or one of another inbox', async () => {
				expectError(await server.api(path(inboxes.public, 'nosuchmessage'), { method, key: owner.key }), 404);
				expectError(await server.api(path(inboxes.public, ids.reserved), { method, key: owner.key }), 404);
			});

			it('answers 400 for a bad address or message id, 401 for an unknown key', async () => {
				expectError(await server.api(path('not-an-address', ids.public), { method, key: owner.key }), 400);
				expectError(await server.api(path(inboxes.public, 'bad!id'), { method, key: owner.key }), 400);
				expectError(await server.api(path(inboxes.public, ids.public), { method, key: 'k_unknown' }), 401);
			});
		},
	);
});
