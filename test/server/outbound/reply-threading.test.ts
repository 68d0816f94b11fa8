import { describe, expect, it } from '@jest/globals';
import type { ErrorBody } from 'mailroom-server/dist/schemas/error';
import { expectError, sendMail } from '../../helpers/messages';
import { credits, postOutgoing, receivedCopy, senderAccount, sendingSetup } from '../../helpers/outgoing';

/** mailparser gives one reference as a string, several as an array. */
const referencesOf = (parsed: { references?: string | string[] }) => [parsed.references ?? []].flat();

describe('replies (inReplyTo)', () => {
	const setup = sendingSetup();

	it('answer a message with its Message-ID in In-Reply-To and References, to its Reply-To, with "Re: " and its subject', async () => {
		const { server, alice } = setup;
		const bob = await senderAccount(server, 'bob', 'bob@local.test', 10);
		const [original] = await sendMail(server, {
			from: 'Ext <ext@sender.test>',
			to: 'bob@local.test',
			replyTo: 'Zoë at Alice <alice@local.test>',
			subject: 'Plans',
			messageId: '<m1@sender.test>',
			inReplyTo: '<m0@sender.test>',
			references: ['<m0@sender.test>'],
			text: 'shall we?',
		});

		const reply = await postOutgoing(server, bob.key, { from: 'Bob <bob@local.test>', inReplyTo: original, text: 'Sounds good' });
		expect(reply.status).toBe(200);
		expect(reply.body).toMatchObject({
			to: ['alice@local.test'],
			subject: 'Re: Plans',
			inReplyTo: original,
			status: 'delivered',
			warnings: [],
		});
		const atAlice = await receivedCopy(server, 'alice@local.test', alice.key);
		expect(atAlice.parsed.subject).toBe('Re: Plans');
		// The name comes back decoded from the original's encoded Reply-To.
		expect(atAlice.parsed.to).toMatchObject({ value: [{ address: 'alice@local.test', name: 'Zoë at Alice' }] });
		expect(atAlice.parsed.inReplyTo).toBe('<m1@sender.test>');
		expect(referencesOf(atAlice.parsed)).toEqual(['<m0@sender.test>', '<m1@sender.test>']);

		// Alice answers the answer: to its From (it has no Reply-To), the subject not prefixed twice, the thread grown by one.
		const bobsId = `<${reply.body._id}@local.test>`;
		const answer = await postOutgoing(server, alice.key, { from: 'alice@local.test', inReplyTo: atAlice.record._id, text: 'Great' });
		expect(answer.body).toMatchObject({ to: ['bob@local.test'], subject: 'Re: Plans', inReplyTo: atAlice.record._id });
		const atBob = await receivedCopy(server, 'bob@local.test', bob.key);
		expect(atBob.parsed.to).toMatchObject({ value: [{ address: 'bob@local.test', name: 'Bob' }] });
		expect(atBob.parsed.inReplyTo).toBe(bobsId);
		expect(referencesOf(atBob.parsed)).toEqual(['<m0@sender.test>', '<m1@sender.test>', bobsId]);

		// A to and a subject given win over the defaults; the threading stays.
		const redirected = await postOutgoing(server, bob.key, {
			from: 'bob@local.test',
			to: 'elsewhere@local.test',
			subject: 'Other',
			inReplyTo: original,
			text: 't',
		});
		expect(redirected.body).toMatchObject({ to: ['elsewhere@local.test'], subject: 'Other' });
		const elsewhere = await receivedCopy(server, 'elsewhere@local.test');
		expect(elsewhere.parsed.inReplyTo).toBe('<m1@sender.test>');
	});

	it('thread from In-Reply-To when the original has no References, keep a subject that has "Re:" already, and go to its From', async () => {
		const { server, relay } = setup;
		const dora = await senderAccount(server, 'dora', 'dora@local.test', 10);
		const [original] = await sendMail(server, {
			from: 'Asker <asker@remote.test>',
			to: 'dora@local.test',
			subject: 'RE: Question',
			messageId: '<m2@remote.test>',
			inReplyTo: '<p@remote.test>',
		});
		const relayedBefore = relay.received.length;
		const reply = await postOutgoing(server, dora.key, { from: 'dora@local.test', inReplyTo: original, text: 'Answer' });
		expect(reply.body).toMatchObject({ to: ['asker@remote.test'], subject: 'RE: Question' });
		const [relayed] = (await relay.waitFor(relayedBefore + 1)).slice(relayedBefore);
		expect(relayed.to).toEqual(['asker@remote.test']);
		expect(relayed.parsed.to).toMatchObject({ value: [{ address: 'asker@remote.test', name: 'Asker' }] });
		expect(relayed.parsed.inReplyTo).toBe('<m2@remote.test>');
		expect(referencesOf(relayed.parsed)).toEqual(['<p@remote.test>', '<m2@remote.test>']);
	});

	it("answers mail of the account's domains, and refuses with 404 another account's message, a public one and an unknown id", async () => {
		const { server } = setup;
		const erin = await senderAccount(server, 'erin', 'erin@local.test', 10);
		await server.domains.claim('erins.test', erin.id);
		const [toDomain] = await sendMail(server, { from: 'x@remote.test', to: 'anyone@erins.test', subject: 'to the domain' });
		const answered = await postOutgoing(server, erin.key, { from: 'erin@local.test', inReplyTo: toDomain, text: 't' });
		expect(answered.body).toMatchObject({ to: ['x@remote.test'], subject: 'Re: to the domain', inReplyTo: toDomain });

		const frank = await senderAccount(server, 'frank', 'frank@local.test', 10);
		const [erinsOwn] = await sendMail(server, { to: 'erin@local.test', subject: 'private' });
		const [publicOne] = await sendMail(server, { to: 'open@local.test', subject: 'public' });
		for (const id of [erinsOwn, toDomain, publicOne, 'no-such-message']) {
			const res = await postOutgoing<ErrorBody>(server, frank.key, { from: 'frank@local.test', inReplyTo: id, text: 't' });
			expectError(res, 404, new RegExp(`^No message ${id} in your inboxes for inReplyTo`));
		}
		expect(await credits(server, frank.key)).toBe(10);
	});
});
