import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { Me } from 'mailroom-server/dist/schemas/account';
import type { ForwardingRecord } from 'mailroom-server/dist/schemas/address';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { sameStore, startTestMailroom, tempDataDir, type TestMailroom } from '../helpers/mailroom';

/** Everything a restart must keep, read through the API. */
async function snapshot(server: TestMailroom, keys: { owner: string; admin: string }) {
	const list = (inbox: string, key?: string) =>
		server.api<MessageRecord[]>(`/api/addresses/${inbox}/messages`, { key }).then((response) => response.body);
	const publicList = await list('public@restart.test');
	return {
		publicList,
		publicText: (await server.api(`/api/text/public@restart.test/${publicList[0]._id}`)).text,
		privateList: await list('private@restart.test', keys.owner),
		privateWithoutKey: (await server.api('/api/addresses/private@restart.test/messages')).status,
		forwarding: (await server.api<ForwardingRecord>('/api/addresses/private@restart.test', { key: keys.owner })).body,
		owner: (await server.api<Me>('/api/me', { key: keys.owner })).body,
		admin: (await server.api<Me>('/api/me', { key: keys.admin })).body,
	};
}

describe('a restart on the same data folder', () => {
	const dataDir = tempDataDir();
	afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

	it('keeps messages, accounts, keys, reserved addresses and webhook settings', async () => {
		const first = await startTestMailroom({ dataDir });
		const owner = await first.createAccount('keeper', 3);
		const keys = { owner: owner.key, admin: first.adminKey };
		let before: Awaited<ReturnType<typeof snapshot>>;
		try {
			expect((await first.api('/api/addresses/private@restart.test', { method: 'POST', key: owner.key })).status).toBe(200);
			await first.send({ from: 'a@sender.test', to: 'public@restart.test', subject: 'older', text: 'See https://example.org/older' });
			await first.send({
				from: 'a@sender.test',
				to: ['public@restart.test', 'private@restart.test'],
				subject: 'newer',
				html: '<p>Read <a href="https://example.org/newer">this</a></p>',
				attachments: [{ filename: 'a.txt', content: 'attached' }],
			});
			const forwarding = await first.api('/api/private-address-forwarding/private@restart.test', {
				method: 'PUT',
				key: owner.key,
				body: { webhook: 'https://example.org/hooks/restart' },
			});
			expect(forwarding.status).toBe(200);
			before = await snapshot(first, keys);
			expect(before.publicList.map((message) => message.subject)).toEqual(['newer', 'older']);
			expect(before.privateList).toHaveLength(1);
			expect(before.privateWithoutKey).toBe(401);
			expect(before.forwarding.webhook).toBe('https://example.org/hooks/restart');
		} finally {
			await first.stop({ removeData: false });
		}

		const second = await startTestMailroom(sameStore(first));
		try {
			expect(second.bootstrap).toBeUndefined();
			expect(await snapshot(second, keys)).toEqual(before);
			// and the restarted server goes on receiving
			await second.send({ from: 'a@sender.test', to: 'public@restart.test', subject: 'after', text: 'after' });
			const subjects = (await second.api<MessageRecord[]>('/api/addresses/public@restart.test/messages')).body.map(
				(message) => message.subject,
			);
			expect(subjects).toEqual(['after', 'newer', 'older']);
		} finally {
			await second.stop({ removeData: false });
		}
	});
});
