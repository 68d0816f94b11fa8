import { expect } from '@jest/globals';
import type { ForwardingRecord, ForwardingUpdateBody } from 'mailroom-server/dist/schemas/address';
import type { TestMailroom } from './mailroom';
import { enc } from './messages';

/**
 * Reserves `email` for the key's account (POST /api/addresses/:email), then gives it `settings` (PUT
 * /api/private-address-forwarding/:email); both must take, and the record must show the settings.
 */
export async function reserveForwarding(server: TestMailroom, key: string, email: string, settings: ForwardingUpdateBody): Promise<void> {
	expect((await server.api(`/api/addresses/${enc(email)}`, { method: 'POST', key })).status).toBe(200);
	const put = await server.api<ForwardingRecord>(`/api/private-address-forwarding/${enc(email)}`, { method: 'PUT', key, body: settings });
	expect(put.status).toBe(200);
	expect(put.body).toMatchObject(settings);
}

/** The forwarding record of one of the key's addresses, as the API shows it. */
export async function forwardingOf(server: TestMailroom, key: string, email: string): Promise<ForwardingRecord> {
	return (await server.api<ForwardingRecord>(`/api/addresses/${enc(email)}`, { key })).body;
}
