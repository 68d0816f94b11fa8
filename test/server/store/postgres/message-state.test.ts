import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Store } from 'mailroom-server/dist/store/store';
import { openPostgresStore } from 'mailroom-server/dist/store/postgres/open';
import { startPostgres, type TestPostgres } from '../../../helpers/postgres';
import { freshStore, mailTo } from './fixtures';

describe('PostgreSQL store: labels, folder, read flag and star of a message', () => {
	let postgres: TestPostgres;
	let store: Store;
	let url: string;
	beforeAll(async () => {
		postgres = await startPostgres();
		({ store, url } = await freshStore(postgres));
	});
	afterAll(async () => {
		await store.close();
		await postgres.stop();
	});

	it('adds a label once and removes it; an unknown message has none', async () => {
		const [{ _id }] = await store.messages.insert(mailTo(['l@x.test']));
		expect(await store.messageState.addLabel('l@x.test', _id, 'work')).toEqual(['work']);
		expect(await store.messageState.addLabel('l@x.test', _id, 'work')).toEqual(['work']);
		expect(await store.messageState.addLabel('l@x.test', _id, 'later')).toEqual(['work', 'later']);
		expect(await store.messageState.removeLabel('l@x.test', _id, 'work')).toEqual(['later']);
		expect((await store.messages.get('l@x.test', _id))?.labels).toEqual(['later']);
		expect(await store.messageState.addLabel('other@x.test', _id, 'x')).toBeUndefined();
		expect(await store.messageState.removeLabel('l@x.test', 'nope', 'x')).toBeUndefined();
	});

	it('keeps both labels two nodes add at the same moment', async () => {
		const second = await openPostgresStore(url, { node: 'node-b', role: 'admin' });
		try {
			const [{ _id }] = await store.messages.insert(mailTo(['both@x.test']));
			await Promise.all(
				Array.from({ length: 10 }, (_, i) => (i % 2 ? store : second).messageState.addLabel('both@x.test', _id, `label-${i}`)),
			);
			expect((await store.messages.get('both@x.test', _id))?.labels.sort()).toEqual(
				Array.from({ length: 10 }, (_, i) => `label-${i}`).sort(),
			);
		} finally {
			await second.close();
		}
	});

	it('sets the folder and the read flag of a message that exists', async () => {
		const [{ _id }] = await store.messages.insert(mailTo(['f@x.test']));
		expect(await store.messageState.setFolder('f@x.test', _id, 'spam')).toBe(true);
		expect(await store.messageState.setRead('f@x.test', _id, true)).toBe(true);
		expect(await store.messages.get('f@x.test', _id)).toMatchObject({ folder: 'spam', read: true });
		expect(await store.messageState.setRead('f@x.test', _id, false)).toBe(true);
		expect((await store.messages.get('f@x.test', _id))?.read).toBe(false);
		expect(await store.messageState.setFolder('g@x.test', _id, 'trash')).toBe(false);
		expect(await store.messageState.setRead('f@x.test', 'nope', true)).toBe(false);
	});

	it('stars and unstars: toggling by anyone, setting idempotently, listing an account starred mail newest first', async () => {
		const at = Date.UTC(2026, 4, 1);
		const [older] = await store.messages.insert(mailTo(['s@x.test'], {}, new Date(at)));
		const [newer] = await store.messages.insert(mailTo(['s@x.test'], {}, new Date(at + 1)));
		expect((await store.messageState.toggleStar('s@x.test', older._id, 'ann'))?.savedBy).toBe('ann');
		expect((await store.messageState.setStar('s@x.test', older._id, 'ben', true))?.savedBy).toBe('ann');
		expect((await store.messageState.setStar('s@x.test', newer._id, 'ann', true))?.savedBy).toBe('ann');
		expect((await store.messageState.starred('ann', 10)).map((record) => record._id)).toEqual([newer._id, older._id]);
		expect((await store.messageState.starred('ann', 1)).map((record) => record._id)).toEqual([newer._id]);
		expect((await store.messageState.toggleStar('s@x.test', older._id, 'ben'))?.savedBy).toBeNull();
		expect((await store.messageState.setStar('s@x.test', newer._id, 'ann', false))?.savedBy).toBeNull();
		expect((await store.messageState.setStar('s@x.test', newer._id, 'ann', false))?.savedBy).toBeNull();
		expect(await store.messageState.starred('ann', 10)).toEqual([]);
		expect(await store.messageState.toggleStar('s@x.test', 'nope', 'ann')).toBeUndefined();
	});
});
