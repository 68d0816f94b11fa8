import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { onlyMessage, subjects } from '../../helpers/inboxes';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';

describe('the ingest thread', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom();
	});
	afterAll(() => server.stop());

	const send = (to: string, subject: string) =>
		server.send({ from: 'a@sender.test', to, subject, text: subject }).then(
			(info) => info.response,
			(err: { response: string }) => err.response,
		);

	it('stores mail with the records committed on its own connection, visible to the API at once', async () => {
		const reply = await send('thread@example.test', 'first');
		expect(reply).toMatch(/^250 /);
		expect(await subjects(server, 'thread@example.test')).toEqual(['first']);
	});

	it('announces each delivery with exactly the record the API serves', async () => {
		const announced = new Promise<unknown[]>((resolve) => server.ingest.once('stored', resolve));
		await server.send({
			from: '"Eve" <eve@sender.test>',
			to: 'announce@example.test',
			cc: 'cc@example.test',
			subject: 'same',
			html: '<a href="https://x.test/">x</a>',
			attachments: [{ filename: 'a.txt', content: 'a' }],
		});
		const [record] = await announced;
		expect(JSON.parse(JSON.stringify(record))).toEqual(await onlyMessage(server, 'announce@example.test'));
	});

	it('is replaced when it ends: mail sent meanwhile gets 250 or a temporary failure, never silence, and later mail is stored', async () => {
		const thread = (server.ingest as unknown as { thread: Worker }).thread;
		const inFlight = send('crash@example.test', 'in flight');
		await thread.terminate();
		expect(await inFlight).toMatch(/^(250|451) /);

		let reply = '';
		for (let attempt = 0; attempt < 100 && !reply.startsWith('250'); attempt++) {
			reply = await send('after-crash@example.test', 'after');
			if (!reply.startsWith('250')) {
				expect(reply).toMatch(/^451 /);
				await new Promise((resolve) => setTimeout(resolve, 50));
			}
		}
		expect(reply).toMatch(/^250 /);
		expect(await subjects(server, 'after-crash@example.test')).toEqual(['after']);
		expect((server.ingest as unknown as { thread: Worker }).thread).not.toBe(thread);
	});
});

describe('the ingest thread at shutdown', () => {
	it('once closed, refuses further mail with a temporary failure instead of leaving it unanswered', async () => {
		const server = await startTestMailroom();
		try {
			await server.ingest.close();
			await expect(server.send({ from: 'a@sender.test', to: 'late@example.test', subject: 'late', text: 'late' })).rejects.toMatchObject({
				responseCode: 451,
			});
		} finally {
			await server.stop();
		}
	});
});
