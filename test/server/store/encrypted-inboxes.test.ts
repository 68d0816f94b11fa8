import { describe, expect, it } from '@jest/globals';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { reserveForwarding } from '../../helpers/addresses';
import { enc, sendMail } from '../../helpers/messages';
import { waitFor } from '../../helpers/webhook-receiver';
import { jsonBody, webhookSetup } from '../../helpers/webhooks';

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
