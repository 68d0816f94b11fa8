import { describe, expect, it } from '@jest/globals';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom } from '../../helpers/mailroom';
import { postOutgoing, senderAccount } from '../../helpers/outgoing';

describe('sending on a server that accepts every domain', () => {
	it('keeps all mail inside when it accepts every domain (no --domains, no relay)', async () => {
		const server = await startTestMailroom({ domains: [] });
		try {
			const account = await senderAccount(server, 'a', 'a@anywhere.test', 1);
			const res = await postOutgoing(server, account.key, { from: 'a@anywhere.test', to: 'someone@gmail.com', subject: 's', text: 't' });
			expect(res.body.recipients).toEqual([
				{ address: 'someone@gmail.com', field: 'to', route: 'local', status: 'delivered', error: null },
			]);
			expect((await server.api<MessageRecord[]>('/api/addresses/someone@gmail.com/messages')).body).toHaveLength(1);
		} finally {
			await server.stop();
		}
	});
});
