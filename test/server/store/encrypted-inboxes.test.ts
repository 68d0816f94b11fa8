import { describe, expect, it } from '@jest/globals';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { reserveForwarding } from '../../helpers/addresses';
import { enc, sendMail } from '../../helpers/messages';
import { waitFor } from '../../helpers/webhook-receiver';
import { jsonBody, webhookSetup } from '../../helpers/webhooks';
import { ENGINES, storePerTest } from '../../helpers/stores';

describe.each(ENGINES)('EncryptedInboxStore (%s)', (engine) => {
	const current = storePerTest(engine);

	it('routes mail to an encrypted address to the inbox it stands for, once remembered, in that inbox domain only', async () => {
		const { encryptedInboxes } = current();
		const token = await encryptedInboxes.tokenFor('secret@enc.test');
		expect(token).toMatch(/^inbox-[0-9a-f]{40}$/);
		expect(await encryptedInboxes.tokenFor('secret@enc.test')).toBe(token);
		expect(await encryptedInboxes.resolve(`${token}@enc.test`, 'enc.test')).toBeUndefined();
		expect(await encryptedInboxes.remember('secret@enc.test')).toBe(true);
		expect(await encryptedInboxes.remember('secret@enc.test')).toBe(false);
		expect(await encryptedInboxes.resolve(`${token}@enc.test`, 'enc.test')).toEqual({
			inbox: 'secret@enc.test',
			originalInbox: `${token}@enc.test`,
			domain: 'enc.test',
		});
		expect(await encryptedInboxes.resolve(`${token}@other.test`, 'other.test')).toBeUndefined();
		expect(await encryptedInboxes.resolve('plain@enc.test', 'enc.test')).toBeUndefined();
	});
});

describe('encryptedInbox addresses', () => {
	const setup = webhookSetup();

	it('routes mail sent to the encryptedInbox address into the real inbox', async () => {
		const { server, receiver, account: alice } = setup;
		await reserveForwarding(server, alice.key, 'secret-box@hooks.test', { webhook: receiver.url });
		await sendMail(server, { to: 'secret-box@hooks.test' });
		const first = jsonBody(await waitFor(() => receiver.requests[0], 'the first webhook'));
		const encrypted = `${first.encryptedInbox}@hooks.test`;

		await sendMail(server, { to: encrypted, subject: 'via the alias' });
		const second = jsonBody(await waitFor(() => receiver.requests[1], 'the second webhook'));
		expect(second).toMatchObject({
			subject: 'via the alias',
			inbox: 'secret-box@hooks.test',
			originalInbox: encrypted,
			encryptedInbox: first.encryptedInbox,
		});
		const listing = await server.api<MessageRecord[]>(`/api/addresses/${enc('secret-box@hooks.test')}/messages`, { key: alice.key });
		expect(listing.body.map((m) => m.subject)).toContain('via the alias');
		// An encrypted token of one domain does not route on another.
		await sendMail(server, { to: `${first.encryptedInbox}@elsewhere.test` });
		const elsewhere = await server.api<MessageRecord[]>(`/api/addresses/${enc(`${first.encryptedInbox}@elsewhere.test`)}/messages`);
		expect(elsewhere.body).toHaveLength(1);
	});
});
