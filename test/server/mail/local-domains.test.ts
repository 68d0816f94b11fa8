import { describe, expect, it } from '@jest/globals';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom } from '../../helpers/mailroom';
import { listOutgoing, NO_REPORT, postOutgoing, senderAccount } from '../../helpers/outgoing';

describe('sending on a server that accepts every domain', () => {
	it('keeps all mail inside when it accepts every domain (no --domains, no relay)', async () => {
		const server = await startTestMailroom({ domains: [] });
		try {
			const account = await senderAccount(server, 'a', 'a@anywhere.test', 1);
			const res = await postOutgoing(server, account.key, { from: 'a@anywhere.test', to: 'someone@gmail.com', subject: 's', text: 't' });
			const note =
				'kept in its inbox on this server, not sent out: gmail.com is no domain of this server, but with no relay configured ' +
				'(--relay-url, MAILROOM_RELAY_URL) and every domain accepted, all mail stays here';
			expect(res.body.recipients).toEqual([
				{
					...{ address: 'someone@gmail.com', field: 'to', route: 'local', status: 'delivered', error: null, note },
					...NO_REPORT,
				},
			]);
			// Said where the sender looks: the answer's warnings, and the recipient in Sent mail.
			expect(res.body.warnings).toEqual([`someone@gmail.com was ${note}`]);
			expect((await listOutgoing(server, account.key))[0].recipients).toEqual(res.body.recipients);
			expect((await server.api<MessageRecord[]>('/api/addresses/someone@gmail.com/messages')).body).toHaveLength(1);
		} finally {
			await server.stop();
		}
	});
});
