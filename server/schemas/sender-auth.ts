/** Who sent a message, as sender authentication says: the `auth` of a message record and payload. */
import Type, { type Static } from 'typebox';
import { Nullable } from './shared';

/** The results of RFC 8601 a method gives. */
export const AUTH_RESULTS = ['pass', 'fail', 'softfail', 'neutral', 'none', 'temperror', 'permerror'] as const;
export type AuthResult = (typeof AUTH_RESULTS)[number];

const Result = Type.Enum([...AUTH_RESULTS], { description: 'an RFC 8601 result' });
const Domain = (description: string) => Nullable(Type.String(), { description });

export const MessageAuthSchema = Type.Object(
	{
		spf: Type.Object(
			{ result: Result, domain: Domain('the domain checked: of MAIL FROM, or of HELO for an empty one') },
			{ description: 'whether the sending host may send for the envelope sender (or HELO) domain' },
		),
		dkim: Type.Array(
			Type.Object({
				result: Result,
				domain: Domain('the signing domain (d=)'),
				selector: Domain('the key selector (s=)'),
				aligned: Type.Boolean({ description: "the signing domain is the From domain's (relaxed)" }),
			}),
			{ description: 'each DKIM signature of the message; empty when it has none' },
		),
		dmarc: Type.Object(
			{
				result: Result,
				policy: Nullable(Type.String(), {
					description: 'the policy the From domain publishes (none, quarantine, reject); null when it publishes none',
				}),
				domain: Domain('the From domain'),
			},
			{ description: "whether SPF or DKIM passed for the From domain, as that domain's DMARC record asks" },
		),
		arc: Type.Object({ result: Result }, { description: 'the ARC chain of a forwarded message: none when it has none' }),
		authenticated: Type.Boolean({
			description: 'DMARC passed; or, for a From domain without a DMARC record, SPF or DKIM passed for the From domain',
		}),
	},
	{ $id: 'MessageAuth', description: 'Who sent the message, as SPF, DKIM, DMARC and ARC say, checked when it was received' },
);
export type MessageAuth = Static<typeof MessageAuthSchema>;
