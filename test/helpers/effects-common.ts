import type { ForwardingRecord } from 'mailroom-server/dist/schemas/address';
import type { TestMailroom } from './mailroom';
import { enc } from './messages';

/** A copy of `object` without `keys`: what two records of the same message have in common. */
export function omit<T extends object, K extends keyof T>(object: T, ...keys: K[]): Omit<T, K> {
	const copy: Partial<T> = { ...object };
	for (const key of keys) delete copy[key];
	return copy as Omit<T, K>;
}

/** The forwarding record of one of the key's addresses, as the API shows it. */
export async function forwardingOf(server: TestMailroom, key: string, email: string): Promise<ForwardingRecord> {
	return (await server.api<ForwardingRecord>(`/api/addresses/${enc(email)}`, { key })).body;
}
