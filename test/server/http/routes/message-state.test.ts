import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom, type TestMailroom } from '../../../helpers/mailroom';
import { enc, expectError, sendMail } from '../../../helpers/messages';

/** What the label routes answer. */
interface Labels {
	_id: string;
	labels: string[];
}

describe('message state: labels, folder, read, star', () => {
	let server: TestMailroom;
	let account: { id: string; key: string };
	let other: { id: string; key: string };
	let id: string;
	const inbox = 'state@example.test';
	const url = (suffix: string) => `/api/addresses/${inbox}/messages/${id}${suffix}`;
	const record = async () => (await server.api<MessageRecord>(url(''))).body;

	beforeAll(async () => {
		server = await startTestMailroom();
		account = await server.createAccount('starrer');
		other = await server.createAccount('other');
		[id] = await sendMail(server, { to: inbox });
	});
	afterAll(() => server.stop());

	it('adds labels once each, URL-decoded, and removes them', async () => {
		expect((await server.api(url('/labels/business%20archive'), { method: 'PUT' })).body).toEqual({
			_id: id,
			labels: ['business archive'],
		});
		expect((await server.api<Labels>(url('/labels/urgent'), { method: 'PUT' })).body.labels).toEqual(['business archive', 'urgent']);
		expect((await server.api<Labels>(url('/labels/urgent'), { method: 'PUT' })).body.labels).toEqual(['business archive', 'urgent']);
		expect((await record()).labels).toEqual(['business archive', 'urgent']);
		expect((await server.api(url('/labels/business%20archive'), { method: 'DELETE' })).body).toEqual({ _id: id, labels: ['urgent'] });
		expect((await server.api<Labels>(url('/labels/absent'), { method: 'DELETE' })).body.labels).toEqual(['urgent']);
		expectError(await server.api(url(`/labels/${'x'.repeat(65)}`), { method: 'PUT' }), 400);
	});

	it('moves to a folder of inbox, all, spam, trash only', async () => {
		for (const folder of ['spam', 'trash', 'all', 'inbox']) {
			expect((await server.api(url(`/folder/${folder}`), { method: 'PUT' })).body).toEqual({ _id: id, folder });
			expect((await record()).folder).toBe(folder);
		}
		expectError(await server.api(url('/folder/drafts'), { method: 'PUT' }), 400);
	});

	it('marks read and unread', async () => {
		expect((await record()).read).toBeNull();
		expect((await server.api(url('/read/true'), { method: 'PUT' })).body).toEqual({ _id: id, read: true });
		expect((await record()).read).toBe(true);
		expect((await server.api(url('/read/false'), { method: 'PUT' })).body).toEqual({ _id: id, read: false });
		expect((await record()).read).toBe(false);
		expectError(await server.api(url('/read/maybe'), { method: 'PUT' }), 400);
	});

	it('star toggles savedBy to the account id and back; starred lists them per account', async () => {
		expectError(await server.api(url('/star'), { method: 'PUT' }), 401);
		const starred = await server.api<MessageRecord>(url('/star'), { method: 'PUT', key: account.key });
		expect(starred.body).toMatchObject({ _id: id, savedBy: account.id });
		expect((await server.api<MessageRecord[]>('/api/addresses/starred/messages', { key: account.key })).body.map((m) => m._id)).toEqual([
			id,
		]);
		expect((await server.api('/api/addresses/starred/messages', { key: other.key })).body).toEqual([]);
		expectError(await server.api('/api/addresses/starred/messages'), 401);
		expectError(await server.api('/api/addresses/starred/messages?limit=0', { key: account.key }), 400);
		expect((await server.api<MessageRecord>(url('/star'), { method: 'PUT', key: account.key })).body.savedBy).toBeNull();
		expect((await server.api('/api/addresses/starred/messages', { key: account.key })).body).toEqual([]);
	});

	it('star/true and star/false set the star: the same request again changes nothing', async () => {
		const star = (starred: string, key?: string) => server.api<MessageRecord>(url(`/star/${starred}`), { method: 'PUT', key });
		expectError(await star('true'), 401);
		expectError(await star('maybe', account.key), 400, /^"maybe" is not true or false, to star or unstar$/);
		for (let i = 0; i < 2; i++) {
			const starred = await star('true', account.key);
			expect(starred.status).toBe(200);
			expect(starred.body.savedBy).toBe(account.id);
			expect(starred.body).toEqual(await record());
		}
		expect((await server.api<MessageRecord[]>('/api/addresses/starred/messages', { key: account.key })).body.map((m) => m._id)).toEqual([
			id,
		]);
		// Starred already, it stays the first starrer's.
		expect((await star('true', other.key)).body.savedBy).toBe(account.id);
		for (let i = 0; i < 2; i++) expect((await star('false', account.key)).body).toMatchObject({ _id: id, savedBy: null });
		expect((await record()).savedBy).toBeNull();
		expectError(await server.api(`/api/addresses/${inbox}/messages/${'A'.repeat(16)}/star/true`, { method: 'PUT', key: account.key }), 404);
	});

	it('a private inbox stars with its owner key only, as the toggle does', async () => {
		const privateInbox = 'private-star@example.test';
		await server.addresses.reserve(privateInbox, account.id);
		const [privateId] = await sendMail(server, { to: privateInbox });
		const star = (key: string) => server.api(`/api/addresses/${privateInbox}/messages/${privateId}/star/true`, { method: 'PUT', key });
		expectError(await star(other.key), 403);
		expect((await star(account.key)).status).toBe(200);
	});

	it('the starred route does not shadow an inbox called "starred"', async () => {
		const [starredInboxId] = await sendMail(server, { to: 'starred@example.test' });
		const list = await server.api<MessageRecord[]>(`/api/addresses/${enc('starred@example.test')}/messages`);
		expect(list.body.map((m) => m._id)).toEqual([starredInboxId]);
	});
});
