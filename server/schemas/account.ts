/** The account of an API key as the API shows it: who it is, what it holds, its keys. */
import Type, { type Static } from 'typebox';
import { DateTime, Nullable } from './shared';

export const MeSchema = Type.Object(
	{
		_id: Type.String(),
		name: Type.String(),
		sendsRemaining: Type.Integer({ description: 'outgoing-message credits left (one per recipient)' }),
		admin: Type.Boolean(),
		created: DateTime(),
	},
	{ examples: [{ _id: 'VP7ZCk8GbBFSFz9o', name: 'Acme QA', sendsRemaining: 100, admin: false, created: '2026-11-02T14:00:00.000Z' }] },
);
export type Me = Static<typeof MeSchema>;

export const AccountStatsSchema = Type.Object({
	addresses: Type.Array(Type.String(), { description: 'reserved addresses' }),
	domains: Type.Array(Type.String(), { description: 'custom domains' }),
	storedMessages: Type.Integer({ description: 'messages of the reserved addresses and of every address of the domains' }),
	starredMessages: Type.Integer({ description: 'messages starred by the account, in any inbox' }),
	inboxBytes: Type.Integer({ description: 'total size in bytes of the stored messages (raw source)' }),
	sendsRemaining: Type.Integer({ description: 'outgoing-message credits left' }),
});
export type AccountStats = Static<typeof AccountStatsSchema>;

export const ApiKeySchema = Type.Object(
	{
		id: Type.String(),
		label: Type.String(),
		created: DateTime(),
		revoked: Nullable(DateTime(), { description: 'when it was revoked; null while it works' }),
		current: Type.Boolean({ description: 'this is the key of the request' }),
	},
	{ examples: [{ id: 'VP7ZCk8H_uTD9srC', label: 'CI pipeline', created: '2026-11-10T16:20:00.000Z', revoked: null, current: false }] },
);
export type ApiKeyView = Static<typeof ApiKeySchema>;

export const NewApiKeySchema = Type.Object(
	{ id: Type.String(), key: Type.String(), label: Type.String(), created: DateTime() },
	{
		examples: [
			{ id: 'VP7ZCk8H_uTD9srC', key: 'mr_q8ZK3vNfT1xWc-LpR0aYbE5uHs2JdG7m', label: 'CI pipeline', created: '2026-11-10T16:20:00.000Z' },
		],
	},
);
