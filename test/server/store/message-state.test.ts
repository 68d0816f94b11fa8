import { describe, expect, it } from '@jest/globals';
import { ENGINES, insert, mailTo, storePerBlock } from '../../helpers/stores';

describe.each(ENGINES)('MessageStateStore: labels, folder, read flag and star of a message (%s)', (engine) => {
	const current = storePerBlock(engine);

	it('adds a label once and removes it; an unknown message has none', async () => {
		const { messages, messageState } = current();
		const [{ _id }] = await insert(current(), mailTo(['l@x.test']));
		expect(await messageState.addLabel('l@x.test', _id, 'work')).toEqual(['work']);
		expect(await messageState.addLabel('l@x.test', _id, 'work')).toEqual(['work']);
		expect(await messageState.addLabel('l@x.test', _id, 'later')).toEqual(['work', 'later']);
		expect(await messageState.removeLabel('l@x.test', _id, 'work')).toEqual(['later']);
		expect((await messages.get('l@x.test', _id))?.labels).toEqual(['later']);
		expect(await messageState.addLabel('other@x.test', _id, 'x')).toBeUndefined();
		expect(await messageState.removeLabel('l@x.test', 'nope', 'x')).toBeUndefined();
	});

	it('sets the folder and the read flag of a message that exists', async () => {
		const { messages, messageState } = current();
		const [{ _id }] = await insert(current(), mailTo(['f@x.test']));
		expect(await messageState.setFolder('f@x.test', _id, 'spam')).toBe(true);
		expect(await messageState.setRead('f@x.test', _id, true)).toBe(true);
		expect(await messages.get('f@x.test', _id)).toMatchObject({ folder: 'spam', read: true });
		expect(await messageState.setRead('f@x.test', _id, false)).toBe(true);
		expect((await messages.get('f@x.test', _id))?.read).toBe(false);
		expect(await messageState.setFolder('g@x.test', _id, 'trash')).toBe(false);
		expect(await messageState.setRead('f@x.test', 'nope', true)).toBe(false);
	});

	it('stars and unstars: toggling by anyone, setting idempotently, listing an account starred mail newest first', async () => {
		const { messageState } = current();
		const at = Date.UTC(2026, 4, 1);
		const [older] = await insert(current(), mailTo(['s@x.test'], {}, new Date(at)));
		const [newer] = await insert(current(), mailTo(['s@x.test'], {}, new Date(at + 1)));
		expect((await messageState.toggleStar('s@x.test', older._id, 'ann'))?.savedBy).toBe('ann');
		expect((await messageState.setStar('s@x.test', older._id, 'ben', true))?.savedBy).toBe('ann');
		expect((await messageState.setStar('s@x.test', newer._id, 'ann', true))?.savedBy).toBe('ann');
		expect((await messageState.starred('ann', 10)).map((record) => record._id)).toEqual([newer._id, older._id]);
		expect((await messageState.starred('ann', 1)).map((record) => record._id)).toEqual([newer._id]);
		expect((await messageState.toggleStar('s@x.test', older._id, 'ben'))?.savedBy).toBeNull();
		expect((await messageState.setStar('s@x.test', newer._id, 'ann', false))?.savedBy).toBeNull();
		expect((await messageState.setStar('s@x.test', newer._id, 'ann', false))?.savedBy).toBeNull();
		expect(await messageState.starred('ann', 10)).toEqual([]);
		expect(await messageState.toggleStar('s@x.test', 'nope', 'ann')).toBeUndefined();
	});
});
