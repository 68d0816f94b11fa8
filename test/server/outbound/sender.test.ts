import { describe, expect, it } from '@jest/globals';
import type { ErrorBody } from 'mailroom-server/dist/schemas/error';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom } from '../../helpers/mailroom';
import { omit } from '../../helpers/messages';
import {
	credits,
	listOutgoing,
	NO_REPORT,
	postOutgoing,
	receivedCopy,
	RFC_5322_DATE,
	senderAccount,
	sendingSetup,
	type Sent,
} from '../../helpers/outgoing';
import { query } from '../../helpers/database';
import { startTestRelay } from '../../helpers/smtp-relay';
import { spoolEntries } from '../../helpers/spool';
import { waitFor } from '../../helpers/webhook-receiver';

/** The 402 of an account `name` with `has` credits, for a message of `needs` recipients. */
const noCredits = (name: string, needs: number, has: number) => ({
	error: 'Payment Required',
	message:
		`You must purchase more outgoing message credits before you can send: this message needs ${needs} (one per recipient) and ` +
		`account "${name}" has ${has}. An administrator adds credits with: mailroom credits add "${name}" <n>`,
});

describe('sending with a relay: checks, composition and charge', () => {
	const setup = sendingSetup();

	/** Sends with alice's key in the header, or another key; `Body` is the answer expected. */
	const send = <Body = Sent>(body: unknown, key: string = setup.alice.key) => postOutgoing<Body>(setup.server, key, body);
	const messages = async (email: string) => (await setup.server.api<MessageRecord[]>(`/api/addresses/${email}/messages`)).body;

	it('relays mail for other domains with the right envelope, headers and body, and takes one credit', async () => {
		const { server, relay, alice } = setup;
		const before = await credits(server, alice.key);
		const res = await send({
			from: 'Alice Example <alice@local.test>',
			to: 'Carol@Remote.test',
			subject: 'Quarterly report',
			text: 'Plain text body https://example.org/r',
			html: '<p>HTML <b>body</b></p>',
		});
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({
			from: 'alice@local.test',
			to: ['carol@remote.test'],
			cc: [],
			bcc: [],
			inReplyTo: null,
			subject: 'Quarterly report',
			status: 'delivered',
			lastError: null,
			attempts: 1,
			recipients: [{ address: 'carol@remote.test', field: 'to', route: 'relay', status: 'delivered', error: null }],
			creditsRemaining: before - 1,
			warnings: [],
		});
		expect(res.body.id).toBe(res.body._id);
		expect(res.body.sent).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
		expect(await credits(server, alice.key)).toBe(before - 1);

		const [mail] = (await relay.waitFor(1)).slice(-1);
		// The envelope sender is the recipient's return path, where its bounces come back (the From header stays alice's).
		expect(mail.from).toBe(res.body.recipients[0].returnPath);
		expect(mail.from).toMatch(/^bounces\+[a-z2-7]{20}@/);
		expect(mail.to).toEqual(['carol@remote.test']);
		expect(mail.parsed.from?.value).toEqual([{ address: 'alice@local.test', name: 'Alice Example' }]);
		expect(mail.parsed.to).toMatchObject({ value: [{ address: 'carol@remote.test' }] });
		expect(mail.parsed.subject).toBe('Quarterly report');
		expect(mail.parsed.text?.trim()).toBe('Plain text body https://example.org/r');
		expect(mail.parsed.html).toContain('<p>HTML <b>body</b></p>');
		expect(mail.parsed.messageId).toBe(`<${res.body._id}@local.test>`);
		expect(mail.raw).not.toMatch(/^dkim-signature:/im);
	});

	it('writes an RFC 5322 Date that a mail client reads as the send time, in the relayed and the local copy', async () => {
		const { server, relay } = setup;
		const relayedBefore = relay.received.length;
		const res = await send({ from: 'alice@local.test', to: ['dated@remote.test', 'dated@local.test'], subject: 'dated', text: 't' });
		expect(res.body.status).toBe('delivered');
		const sentToTheSecond = Math.floor(Date.parse(res.body.sent) / 1000) * 1000;
		const [relayed] = (await relay.waitFor(relayedBefore + 1)).slice(relayedBefore);
		for (const copy of [relayed, await receivedCopy(server, 'dated@local.test')]) {
			const dateHeader = copy.parsed.headerLines.find((line) => line.key === 'date')!.line;
			expect(dateHeader.replace(/^Date: /, '')).toMatch(RFC_5322_DATE);
			expect(copy.parsed.date?.getTime()).toBe(sentToTheSecond);
		}
	});

	it('answers 400 naming the field for invalid JSON and missing or invalid fields, and charges nothing', async () => {
		const { server, alice } = setup;
		const before = await credits(server, alice.key);
		const badJson = await send<ErrorBody>('{"to": "x@local.test",');
		expect(badJson.status).toBe(400);
		expect(badJson.body.message).toMatch(/JSON/);
		// The field at fault is also named apart (`field`), for forms to mark; a limit of several fields names none.
		const cases: [Record<string, unknown>, RegExp, string | undefined][] = [
			[{ from: 'alice@local.test', text: 'x' }, /^to is required/, 'to'],
			[{ to: 'x@local.test', text: 'x' }, /\bfrom\b/, 'from'],
			[{ from: 'alice@local.test', to: 'x@local.test', subject: 's' }, /^text or html is required$/, 'text'],
			[{ from: 'alice@local.test', to: 'not an address', text: 'x' }, /^to "not an address" is not an email address$/, 'to'],
			[{ from: 'alice@@local.test', to: 'x@local.test', text: 'x' }, /^from /, 'from'],
			[{ from: 'alice@local.test', to: [], text: 'x' }, /^to must have at least 1 item$/, 'to'],
			[{ from: 'alice@local.test', to: { address: 'x@local.test' }, text: 'x' }, /^to must be one address, /, 'to'],
			[
				{ from: 'alice@local.test', to: Array.from({ length: 51 }, (_, i) => `r${i}@local.test`), text: 'x' },
				/^to must have at most 50 items$/,
				'to',
			],
			[
				{ from: 'alice@local.test', to: Array.from({ length: 51 }, (_, i) => `r${i}@local.test`).join(', '), text: 'x' },
				/^to, cc and bcc name 51 .*50$/,
				undefined,
			],
		];
		for (const [body, message, field] of cases) {
			const res = await send<ErrorBody>(body);
			expect({ body, status: res.status, error: res.body.error, field: res.body.field }).toEqual({
				body,
				status: 400,
				error: 'Bad Request',
				field,
			});
			expect(res.body.message).toMatch(message);
		}
		expect(await credits(server, alice.key)).toBe(before);
	});

	it('accepts a missing subject with a warning', async () => {
		const res = await send({ from: 'alice@local.test', to: 'nosubject@local.test', text: 'no subject here' });
		expect(res.status).toBe(200);
		expect(res.body.subject).toBe('');
		expect(res.body.warnings).toEqual([expect.stringMatching(/subject/i)]);
	});

	it('refuses a from address the account does not own with 403, and charges nothing', async () => {
		const { server } = setup;
		const mallory = await senderAccount(server, 'mallory', 'mallory@local.test', 5);
		for (const from of ['alice@local.test', 'unreserved@local.test', 'mallory@remote.test']) {
			const res = await send<ErrorBody>({ from, to: 'victim@local.test', subject: 's', text: 't' }, mallory.key);
			expect(res.status).toBe(403);
			expect(res.body.message).toContain(from);
		}
		expect(await credits(server, mallory.key)).toBe(5);
		expect(await messages('victim@local.test')).toHaveLength(0);
	});

	it('answers 402 when credits are short, sending and deducting nothing', async () => {
		const { server, relay } = setup;
		const poor = await senderAccount(server, 'poor', 'poor@local.test', 1);
		const relayedBefore = relay.received.length;
		const res = await send<ErrorBody>(
			{ from: 'poor@local.test', to: ['p1@local.test', 'p2@remote.test'], subject: 's', text: 't' },
			poor.key,
		);
		expect(res.status).toBe(402);
		expect(res.body).toEqual(noCredits('poor', 2, 1));
		expect(await credits(server, poor.key)).toBe(1);
		expect(await listOutgoing(server, poor.key)).toEqual([]);
		expect(await messages('p1@local.test')).toHaveLength(0);
		expect(relay.received.length).toBe(relayedBefore);

		const zero = await senderAccount(server, 'zero', 'zero@local.test', 0);
		expect((await send<ErrorBody>({ from: 'zero@local.test', to: 'p1@local.test', text: 't' }, zero.key)).body).toEqual(
			noCredits('zero', 1, 0),
		);
	});

	it('sends from any address in a domain the account owns', async () => {
		const { server } = setup;
		const owner = await server.createAccount('domain-owner', 3);
		await query(server, "INSERT INTO domains (domain, owner, created) VALUES ('owned.test', ?, '2026-01-01T00:00:00.000Z')", [owner.id]);
		const res = await send({ from: 'anything@owned.test', to: 'someone@owned.test', subject: 'own domain', text: 't' }, owner.key);
		expect(res.status).toBe(200);
		expect(res.body.recipients).toEqual([
			{
				address: 'someone@owned.test',
				field: 'to',
				route: 'local',
				status: 'delivered',
				error: null,
				note: null,
				...NO_REPORT,
			},
		]);
	});
});

describe('sending to cc and bcc', () => {
	const setup = sendingSetup();

	it('delivers to every to, cc and bcc recipient, local and relayed, one credit each, and no copy names a bcc recipient', async () => {
		const { server, relay, alice } = setup;
		const before = await credits(server, alice.key);
		const relayedBefore = relay.received.length;
		const res = await postOutgoing(server, alice.key, {
			from: 'Alice <alice@local.test>',
			to: ['To One <to1@local.test>', 'to2@remote.test'],
			cc: 'cc1@local.test, Cc Two <cc2@remote.test>',
			// to1 is named twice: one recipient, one credit, a To recipient.
			bcc: ['bcc1@local.test', 'Hidden <bcc2@remote.test>', 'TO1@local.test'],
			subject: 'Everyone',
			text: 'to all',
		});
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({
			status: 'delivered',
			to: ['to1@local.test', 'to2@remote.test'],
			cc: ['cc1@local.test', 'cc2@remote.test'],
			bcc: ['bcc1@local.test', 'bcc2@remote.test'],
			creditsRemaining: before - 6,
		});
		expect(res.body.recipients.map(({ address, field, route }) => [address, field, route])).toEqual([
			['to1@local.test', 'to', 'local'],
			['to2@remote.test', 'to', 'relay'],
			['cc1@local.test', 'cc', 'local'],
			['cc2@remote.test', 'cc', 'relay'],
			['bcc1@local.test', 'bcc', 'local'],
			['bcc2@remote.test', 'bcc', 'relay'],
		]);
		expect(await credits(server, alice.key)).toBe(before - 6);
		expect((await listOutgoing(server, alice.key))[0]).toEqual(omit(res.body, 'id', 'creditsRemaining', 'warnings'));

		// One SMTP transaction per relayed recipient, each with its own return path (VERP).
		const relayedNow = (await relay.waitFor(relayedBefore + 3)).slice(relayedBefore);
		expect(relay.received).toHaveLength(relayedBefore + 3);
		expect(relayedNow.map((mail) => mail.to)).toEqual([['to2@remote.test'], ['cc2@remote.test'], ['bcc2@remote.test']]);
		expect(relayedNow.map((mail) => mail.from)).toEqual(res.body.recipients.filter((r) => r.route === 'relay').map((r) => r.returnPath));
		const [relayed] = relayedNow;
		const copies = [relayed, ...(await Promise.all(['to1', 'cc1', 'bcc1'].map((name) => receivedCopy(server, `${name}@local.test`))))];
		for (const copy of copies) {
			expect(copy.parsed.to).toMatchObject({ value: [{ address: 'to1@local.test', name: 'To One' }, { address: 'to2@remote.test' }] });
			expect(copy.parsed.cc).toMatchObject({ value: [{ address: 'cc1@local.test' }, { address: 'cc2@remote.test', name: 'Cc Two' }] });
			expect(copy.parsed.bcc).toBeUndefined();
			expect(copy.raw.toString()).not.toMatch(/^bcc:|bcc1|bcc2|Hidden/im);
		}
		const bccCopy = await receivedCopy(server, 'bcc1@local.test');
		expect(bccCopy.record).toMatchObject({ inbox: 'bcc1@local.test', subject: 'Everyone', bcc: null });
		expect(bccCopy.record.cc?.map((a) => a.address)).toEqual(['cc1@local.test', 'cc2@remote.test']);
	});

	it('refuses with 402, charging and sending nothing, when the credits cover the To recipients but not cc and bcc', async () => {
		const { server, relay } = setup;
		const short = await senderAccount(server, 'short', 'short@local.test', 2);
		const relayedBefore = relay.received.length;
		const res = await postOutgoing<ErrorBody>(server, short.key, {
			from: 'short@local.test',
			to: 'short-to@local.test',
			cc: 'short-cc@remote.test',
			bcc: 'short-bcc@local.test',
			text: 't',
		});
		expect(res.status).toBe(402);
		expect(res.body).toEqual(noCredits('short', 3, 2));
		expect(await credits(server, short.key)).toBe(2);
		expect(await listOutgoing(server, short.key)).toEqual([]);
		for (const inbox of ['short-to@local.test', 'short-bcc@local.test']) expect(await messages(inbox)).toEqual([]);
		expect(relay.received).toHaveLength(relayedBefore);
	});

	const messages = async (email: string) => (await setup.server.api<MessageRecord[]>(`/api/addresses/${email}/messages`)).body;
});

describe('sending without a relay', () => {
	it('refuses external recipients with 422 before charging, and delivers local ones', async () => {
		const server = await startTestMailroom({ domains: ['local.test'] });
		try {
			const account = await senderAccount(server, 'a', 'a@local.test', 2);
			const post = <Body = Sent>(to: string[]) =>
				postOutgoing<Body>(server, account.key, { from: 'a@local.test', to, subject: 's', text: 't' });
			const refused = await post<ErrorBody>(['in@local.test', 'out@remote.test']);
			expect(refused.status).toBe(422);
			expect(refused.body.message).toMatch(/relay.*out@remote\.test/i);
			expect(await credits(server, account.key)).toBe(2);
			expect((await post(['in@local.test'])).body.status).toBe('delivered');
		} finally {
			await server.stop();
		}
	});

	it('refuses with 413 a message that would compose larger than --max-message-size, before charging', async () => {
		const server = await startTestMailroom({ domains: ['local.test'], maxMessageSize: 2000 });
		try {
			const account = await senderAccount(server, 'a', 'a@local.test', 1);
			const post = <Body = Sent>(text: string) =>
				postOutgoing<Body>(server, account.key, { from: 'a@local.test', to: 'in@local.test', subject: 's', text });
			const refused = await post<ErrorBody>('é'.repeat(1000));
			expect(refused.status).toBe(413);
			expect(refused.body).toEqual({
				error: 'Payload Too Large',
				message: expect.stringMatching(/^The composed message is \d+ bytes, more than the maximum message size of 2000 bytes$/),
			});
			expect(await credits(server, account.key)).toBe(1);
			expect((await server.api('/api/addresses/in@local.test/messages')).body).toEqual([]);
			expect((await post('short')).body.status).toBe('delivered');
		} finally {
			await server.stop();
		}
	});

	it('checks credits, then the size of what it was given, before it decodes or composes anything', async () => {
		const server = await startTestMailroom({ domains: ['local.test'], maxMessageSize: 2000 });
		try {
			const broke = await senderAccount(server, 'broke', 'broke@local.test', 0);
			// An attachment that is no base64 would be refused (400) when decoded: without credits it never is.
			const undecoded = await postOutgoing<ErrorBody>(server, broke.key, {
				...{ from: 'broke@local.test', to: 'in@local.test', text: 't' },
				attachments: [{ filename: 'a.bin', content: 'not base64!' }],
			});
			expect(undecoded.status).toBe(402);
			expect(undecoded.body).toEqual(noCredits('broke', 1, 0));

			const paying = await senderAccount(server, 'paying', 'paying@local.test', 1);
			const tooLarge = await postOutgoing<ErrorBody>(server, paying.key, {
				...{ from: 'paying@local.test', to: 'in@local.test', text: 'a'.repeat(1500) },
				attachments: [{ filename: 'a.bin', content: Buffer.alloc(501).toString('base64') }],
			});
			expect(tooLarge.status).toBe(413);
			expect(tooLarge.body.message).toBe(
				'The text, HTML and attachments of the message are 2001 bytes, more than the maximum message size of 2000 bytes',
			);
			expect(await credits(server, paying.key)).toBe(1);
		} finally {
			await server.stop();
		}
	});
});

describe('sending large bodies', () => {
	it('composes a text and an HTML body of several hundred KB, and an attachment, byte for byte, into the local copy and the relayed one', async () => {
		// Over the spool threshold the message is composed into a spool file: the local copy is parsed from it, as large SMTP
		// mail is, and the relay reads it from there too; the file is gone once that first attempt has ended.
		const relay = await startTestRelay();
		const server = await startTestMailroom({ domains: ['local.test'], spoolThreshold: 512 * 1024, relayUrl: relay.url });
		try {
			const account = await senderAccount(server, 'large', 'large@local.test', 2);
			// Characters of 1 to 4 bytes of UTF-8 (an emoji is a surrogate pair), so pieces of the text end inside characters.
			const line = 'Grüße 😀 aus Zürich — ' + '€'.repeat(20) + ' plain ASCII to the end of the line';
			const text = Array.from({ length: 8_000 }, (_, i) => `${i} ${line}`).join('\n');
			const html = `<p>${'<b>ß😀</b> html '.repeat(20_000)}</p>`;
			const attachment = Buffer.alloc(300_001, 'binary data \u00ff ');
			const res = await postOutgoing(server, account.key, {
				...{ from: 'large@local.test', to: 'large-in@local.test', cc: 'large@remote.test', subject: 'large', text, html },
				attachments: [{ filename: 'large.bin', content: attachment.toString('base64') }],
			});
			// The answer waits 10 s at most for the first attempt, which on a busy machine may end after it ("queued").
			expect(['delivered', 'queued']).toContain(res.body.status);
			await waitFor(async () => (await listOutgoing(server, account.key))[0]?.status === 'delivered', 'the send delivered', 30_000);
			expect(spoolEntries(server)).toEqual([]);
			const { parsed } = await receivedCopy(server, 'large-in@local.test');
			expect(parsed.text).toBe(text);
			expect(parsed.html).toBe(html);
			expect(parsed.attachments).toHaveLength(1);
			expect(parsed.attachments[0].content.equals(attachment)).toBe(true);
			const [relayed] = await relay.waitFor(1);
			expect(relayed.parsed.text).toBe(text);
			expect(relayed.parsed.html).toBe(html);
			expect(relayed.parsed.attachments[0].content.equals(attachment)).toBe(true);
		} finally {
			await server.stop();
			await relay.close();
		}
	});
});
