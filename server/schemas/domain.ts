/** A custom domain as the API shows it. */
import Type, { type Static } from 'typebox';
import { DateTime, Nullable } from './shared';

export const DomainSchema = Type.Object(
	{
		_id: Type.String({ description: 'the domain' }),
		owner: Type.String({ description: 'id of the owning account' }),
		catchAll: Nullable(Type.String(), {
			description:
				'the catch-all address: its forwarding settings apply to the addresses of the domain that lack them (set with PUT /api/domains/{domain})',
		}),
		created: DateTime(),
	},
	{
		$id: 'Domain',
		description: 'A custom domain owned by an account: all mail to it is private to that account.',
		examples: [
			{ _id: 'mail.example.com', owner: 'VP7ZCk8GbBFSFz9o', catchAll: 'inbox@mail.example.com', created: '2026-11-02T14:05:10.448Z' },
		],
	},
);
export type DomainRecord = Static<typeof DomainSchema>;
