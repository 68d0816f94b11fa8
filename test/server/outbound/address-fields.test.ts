import { describe, expect, it } from '@jest/globals';
import type { ErrorBody } from 'mailroom-server/dist/schemas/error';
import { expectError } from '../../helpers/messages';
import { credits, listOutgoing, postOutgoing, receivedCopy, sendingSetup } from '../../helpers/outgoing';

describe('the address fields of a send', () => {
	const setup = sendingSetup();

	const mail = { from: 'alice@local.test', to: 'fields@local.test', subject: 'fields', text: 't' };

	it('refuses a line break in to, cc, bcc, replyTo or from with 400, never reading it as another header or recipient', async () => {
		const { server, relay, alice } = setup;
		const before = await credits(server, alice.key);
		const sentBefore = (await listOutgoing(server, alice.key)).length;
		const relayedBefore = relay.received.length;
		const cases: [field: string, value: string | string[]][] = [
			['to', 'victim@local.test\r\nBcc: evil@remote.test'],
			['to', ['victim@local.test', 'x@local.test\nSubject: spoofed']],
			['cc', 'victim@local.test,\r\n evil@remote.test'],
			['bcc', ['evil@remote.test\r']],
			['replyTo', 'Name\r\n <reply@remote.test>'],
			['from', 'alice@local.test\r\nSender: evil@remote.test'],
		];
		for (const [field, value] of cases) {
			const res = await postOutgoing<ErrorBody>(server, alice.key, { ...mail, [field]: value });
			expectError(res, 400, new RegExp(`^${field} contains a line break \\(CR or LF\\)`), field);
		}
		expect(await credits(server, alice.key)).toBe(before);
		expect(await listOutgoing(server, alice.key)).toHaveLength(sentBefore);
		expect(relay.received).toHaveLength(relayedBefore);
		expect((await server.api('/api/addresses/victim@local.test/messages')).body).toEqual([]);
	});

	it('holds to, cc and bcc together to 50 distinct recipients, and needs to unless the send answers a message', async () => {
		const { server, alice } = setup;
		const addresses = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}@local.test`);
		const tooMany = await postOutgoing(server, alice.key, {
			...mail,
			to: addresses('t', 20),
			cc: addresses('c', 20),
			bcc: addresses('b', 11),
		});
		expectError(tooMany, 400, /^to, cc and bcc name 51 distinct recipients together, more than the maximum of 50$/);
		// The same addresses named twice count once.
		const repeated = await postOutgoing(server, alice.key, {
			...mail,
			to: addresses('r', 30),
			cc: addresses('r', 30),
			bcc: addresses('s', 20),
		});
		expect(repeated.status).toBe(200);
		expect(repeated.body.recipients).toHaveLength(50);
		expect(repeated.body.cc).toEqual([]);

		const noTo = { from: 'alice@local.test', cc: 'c@local.test', subject: 's', text: 't' };
		expectError(await postOutgoing(server, alice.key, noTo), 400, /^to is required \(unless inReplyTo/);
	});

	it('writes replyTo as the Reply-To header, names kept, and charges nothing for it', async () => {
		const { server, alice } = setup;
		const before = await credits(server, alice.key);
		const res = await postOutgoing(server, alice.key, {
			...mail,
			to: 'replyto@local.test',
			replyTo: ['Support Desk <support@local.test>', 'team@remote.test'],
		});
		expect(res.status).toBe(200);
		expect(await credits(server, alice.key)).toBe(before - 1);
		const copy = await receivedCopy(server, 'replyto@local.test');
		expect(copy.parsed.replyTo?.value).toEqual([
			{ address: 'support@local.test', name: 'Support Desk' },
			{ address: 'team@remote.test', name: '' },
		]);
		expectError(
			await postOutgoing(server, alice.key, { ...mail, replyTo: 'not an address' }),
			400,
			/^replyTo "not an address" is not an email address$/,
			'replyTo',
		);
	});
});
