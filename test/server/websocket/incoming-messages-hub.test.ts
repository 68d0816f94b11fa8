import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { RECORD_FIELDS } from '../../helpers/inboxes';
import { enc, sendMail } from '../../helpers/messages';
import { waitFor } from '../../helpers/webhook-receiver';
import { listen } from '../../helpers/websocket';
import { reserveForwarding } from '../../helpers/addresses';
import { query } from '../../helpers/database';

describe('websocket /incoming-messages', () => {
	let server: TestMailroom;
	let alice: { id: string; key: string };
	let bob: { id: string; key: string };

	beforeAll(async () => {
		server = await startTestMailroom();
		alice = await server.createAccount('alice');
		bob = await server.createAccount('bob');
		await reserveForwarding(server, alice.key, 'on@ws.test', { enablews: true });
		await reserveForwarding(server, alice.key, 'off@ws.test', { enablews: false });
		await reserveForwarding(server, bob.key, 'bobs@ws.test', { enablews: true });
		await server.domains.claim('alice-domain.test', alice.id);
		await reserveForwarding(server, alice.key, 'all@alice-domain.test', { enablews: true });
		await query(server, 'UPDATE addresses SET catch_all = ? WHERE email = ?', ['alice-domain.test', 'all@alice-domain.test']);
	});
	afterAll(() => server.stop());

	it("sends frames only for the listed addresses and domains of the key's account that have enablews", async () => {
		const listener = await listen(
			server,
			`key=${enc(alice.key)}&addresses=${enc('on@ws.test,OFF@ws.test,bobs@ws.test,alice-domain.test,bob-domain.test')}`,
		);
		expect(listener.frames[0]).toEqual({
			status: 200,
			msg: 'Listening',
			addresses: ['on@ws.test', 'off@ws.test'],
			domains: ['alice-domain.test'],
		});

		for (const to of ['off@ws.test', 'bobs@ws.test', 'unlisted@ws.test', 'on@ws.test', 'anyone@alice-domain.test']) {
			await server.send({ from: 'sender@example.org', to, subject: `to ${to}`, text: 'hello' });
		}
		await waitFor(() => listener.frames.length >= 3, 'two message frames');
		await new Promise((resolve) => setTimeout(resolve, 300)); // room for frames that should not come
		const emails = listener.frames.slice(1).map((frame) => frame.email!);
		expect(listener.frames.slice(1).every((frame) => frame.status === 200)).toBe(true);
		expect(emails.map((email) => email.subject)).toEqual(['to on@ws.test', 'to anyone@alice-domain.test']);

		const [first] = emails;
		expect(first).toMatchObject({ inbox: 'on@ws.test', domain: 'ws.test', from: [{ address: 'sender@example.org', name: '' }] });
		expect(first.text).toEqual(expect.stringContaining('hello'));
		expect(first.headers.subject).toBe('to on@ws.test');
		expect(first.raw).toEqual(expect.stringContaining('\r\nSubject: to on@ws.test\r\n'));
		for (const field of RECORD_FIELDS) expect(first).toHaveProperty(field);
		expect(first).toMatchObject({ html: null, attachments: [] });
		// JSON in text frames: what a browser gets as a string for JSON.parse(event.data).
		expect(listener.binary).toEqual(listener.frames.map(() => false));
		listener.socket.close();
	});

	it('gives the HTML body, and the attachments with the links that download them, as webhook payloads do', async () => {
		const listener = await listen(server, `key=${enc(alice.key)}&addresses=${enc('on@ws.test')}`);
		const [messageId] = await sendMail(server, {
			to: 'on@ws.test',
			subject: 'with parts',
			html: '<p>Hi <b>there</b></p>',
			attachments: [{ filename: 'a.txt', content: 'attached text', contentType: 'text/plain' }],
		});
		await waitFor(() => listener.frames.length >= 2, 'the message frame');
		const { email } = listener.frames[1];
		expect(email).toMatchObject({ _id: messageId, html: '<p>Hi <b>there</b></p>' });
		const [attachment] = email!.attachments;
		expect(attachment).toMatchObject({ filename: 'a.txt', contentType: 'text/plain', size: 13, contentId: null });
		const download = await fetch(attachment.url, { headers: { 'Service-Key': alice.key } });
		expect(await download.text()).toBe('attached text');
		expect(listener.binary).toEqual([false, false]);
		listener.socket.close();
	});

	it("shows another account's key nothing of alice's addresses", async () => {
		const listener = await listen(server, `key=${enc(bob.key)}&addresses=${enc('on@ws.test,alice-domain.test')}`);
		expect(listener.frames[0]).toEqual({ status: 200, msg: 'Listening', addresses: [], domains: [] });
		await server.send({ from: 'sender@example.org', to: 'on@ws.test', subject: 'private', text: 'x' });
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(listener.frames).toHaveLength(1);
		listener.socket.close();
	});

	it("applies the catch-all's enablews to an address of the domain that does not have it on, as every catch-all setting", async () => {
		await reserveForwarding(server, alice.key, 'quiet@alice-domain.test', { enablews: false });
		const listener = await listen(server, `key=${enc(alice.key)}&addresses=${enc('quiet@alice-domain.test')}`);
		await server.send({ from: 'sender@example.org', to: 'quiet@alice-domain.test', subject: 'via the catch-all', text: 'x' });
		await waitFor(() => listener.frames.length === 2, "the frame the catch-all's enablews sends");
		expect(listener.frames[1].email).toMatchObject({ inbox: 'quiet@alice-domain.test', subject: 'via the catch-all' });
		listener.socket.close();
	});

	it('stops sending once enablews is turned off', async () => {
		const listener = await listen(server, `key=${enc(alice.key)}&addresses=${enc('on@ws.test')}`);
		await server.send({ from: 'sender@example.org', to: 'on@ws.test', subject: 'while on', text: 'x' });
		await waitFor(() => listener.frames.length === 2, 'the frame while enabled');
		await reserveForwarding(server, alice.key, 'on@ws.test', { enablews: false });
		await server.send({ from: 'sender@example.org', to: 'on@ws.test', subject: 'while off', text: 'x' });
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(listener.frames.map((frame) => frame.email?.subject)).toEqual([undefined, 'while on']);
		await reserveForwarding(server, alice.key, 'on@ws.test', { enablews: true });
		listener.socket.close();
	});

	it('answers an unknown key with a 401 frame and closes', async () => {
		const listener = await listen(server, 'key=mr_not-a-real-key&addresses=on%40ws.test');
		expect(listener.frames[0]).toMatchObject({ status: 401 });
		expect(await listener.closed).toBe(1008);
		const noKey = await listen(server, 'addresses=on%40ws.test');
		expect(noKey.frames[0]).toMatchObject({ status: 401 });
		expect(await noKey.closed).toBe(1008);
	});
});
