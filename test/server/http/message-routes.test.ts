import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { enc, expectError, sendMail } from '../../helpers/messages';

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

describe('message routes: authorisation, 404 and parameters', () => {
	let server: TestMailroom;
	let owner: { id: string; key: string };
	let other: { id: string; key: string };
	const ids: Record<string, string> = {};
	const inboxes = { public: 'open@example.test', reserved: 'mine@example.test', domain: 'any@owned.test' };

	beforeAll(async () => {
		server = await startTestMailroom();
		owner = server.createAccount('owner');
		other = server.createAccount('other');
		server.addresses.reserve(inboxes.reserved, owner.id);
		server.domains.claim('owned.test', owner.id);
		for (const [kind, inbox] of Object.entries(inboxes)) {
			[ids[kind]] = await sendMail(server, { to: inbox, attachments: [{ filename: 'note.txt', content: 'a note' }] });
		}
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

	it('GET message-count counts an inbox and follows the same access rules', async () => {
		expect((await server.api(`/api/addresses/${inboxes.public}/message-count`)).body).toEqual({ count: 1, inbox: inboxes.public });
		expect((await server.api('/api/addresses/NOBODY@example.test/message-count')).body).toEqual({ count: 0, inbox: 'nobody@example.test' });
		expectError(await server.api(`/api/addresses/${inboxes.reserved}/message-count`), 401);
		expectError(await server.api(`/api/addresses/${inboxes.reserved}/message-count`, { key: other.key }), 403);
		expect((await server.api(`/api/addresses/${inboxes.reserved}/message-count`, { key: owner.key })).body.count).toBe(1);
		expectError(await server.api('/api/addresses/nope/message-count'), 400);
	});

	it('GET one message returns the full record', async () => {
		const response = await server.api(`/api/addresses/${inboxes.public}/messages/${ids.public}`);
		expect(response.body).toMatchObject({
			_id: ids.public,
			inbox: inboxes.public,
			subject: 'hello',
			attachments: [expect.stringMatching(/^[0-9a-f]{32}$/)],
		});
		const [listed] = (await server.api(`/api/addresses/${inboxes.public}/messages`)).body;
		expect(response.body).toEqual(listed);
	});

	it('DELETE one message: public mail without a key, private mail only by its owner', async () => {
		const [id] = await sendMail(server, { to: inboxes.public });
		expect((await server.api(`/api/addresses/${inboxes.public}/messages/${id}`, { method: 'DELETE' })).body).toEqual({
			_id: id,
			inbox: inboxes.public,
			message: 'Message was deleted.',
		});
		expectError(await server.api(`/api/addresses/${inboxes.public}/messages/${id}`, { method: 'DELETE' }), 404);
		const [privateId] = await sendMail(server, { to: inboxes.reserved });
		const url = `/api/addresses/${inboxes.reserved}/messages/${privateId}`;
		expectError(await server.api(url, { method: 'DELETE' }), 401);
		expectError(await server.api(url, { method: 'DELETE', key: other.key }), 403);
		expect((await server.api(url, { method: 'DELETE', key: owner.key })).status).toBe(200);
		expectError(await server.api(`/api/addresses/${inboxes.public}/messages/bad!id`, { method: 'DELETE' }), 400);
	});

	it('DELETE a whole inbox: only an owned inbox, starred messages kept', async () => {
		const inbox = 'empty-me@owned.test';
		const [starred, plain] = [(await sendMail(server, { to: inbox }))[0], (await sendMail(server, { to: inbox }))[0]];
		await server.api(`/api/addresses/${inbox}/messages/${starred}/star`, { method: 'PUT', key: owner.key });
		expectError(await server.api(`/api/addresses/${inbox}/messages`, { method: 'DELETE' }), 401);
		expectError(await server.api(`/api/addresses/${inbox}/messages`, { method: 'DELETE', key: other.key }), 403);
		expectError(
			await server.api(`/api/addresses/${inboxes.public}/messages`, { method: 'DELETE', key: owner.key }),
			403,
			/not a private address/,
		);
		expectError(await server.api('/api/addresses/bad/messages', { method: 'DELETE', key: owner.key }), 400);
		const response = await server.api(`/api/addresses/${inbox}/messages`, { method: 'DELETE', key: owner.key });
		expect([response.status, response.text]).toEqual([204, '']);
		const left = (await server.api(`/api/addresses/${inbox}/messages`, { key: owner.key })).body.map((m: { _id: string }) => m._id);
		expect(left).toEqual([starred]);
		expect(left).not.toContain(plain);
	});
});
