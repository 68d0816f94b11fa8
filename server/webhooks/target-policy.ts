import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Never a webhook target: cloud metadata and link-local services, and addresses that are not one host. */
const ALWAYS_REFUSED = new Set(['unspecified', 'linkLocal', 'multicast', 'broadcast']);
/** Refused only when private targets are disallowed (self-hosters often run n8n next to Mailroom). */
const PRIVATE = new Set(['loopback', 'private', 'uniqueLocal', 'carrierGradeNat']);

/** A target the SSRF policy does not allow; the reason is shown in Recent Activity. */
export class RefusedTargetError extends Error {
	readonly code = 'EREFUSEDTARGET';
}

/** Why a webhook may not connect to `ip`, or null when it may. IPv4-mapped IPv6 counts as IPv4. */
export function refusalReason(ip: string, allowPrivate: boolean): string | null {
	if (!ipaddr.isValid(ip)) return `${ip} is not an IP address`;
	const range = ipaddr.process(ip).range();
	if (ALWAYS_REFUSED.has(range)) return `${ip} is a ${range} address; webhooks never go there`;
	if (!allowPrivate && PRIVATE.has(range)) return `${ip} is a ${range} address and MAILROOM_WEBHOOK_ALLOW_PRIVATE is false`;
	return null;
}

/** Resolves a host name to all its addresses (dns.lookup by default; tests inject their own). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
	new Promise((resolve, reject) =>
		dnsLookup(hostname, { all: true } as LookupAllOptions, (err, addresses) => (err ? reject(err) : resolve(addresses))),
	);

/**
 * A `lookup` for the HTTP agent: the socket connects only to addresses checked here, so a
 * name that resolves differently later (DNS rebinding) cannot slip past the check.
 */
export function checkedLookup(allowPrivate: boolean, resolver: Resolver): LookupFunction {
	return (hostname, options, callback) => {
		resolver(hostname).then(
			(addresses) => {
				const family = options.family === 4 || options.family === 6 ? options.family : undefined;
				const candidates = addresses.filter((entry) => family === undefined || entry.family === family);
				const allowed = candidates.filter((entry) => refusalReason(entry.address, allowPrivate) === null);
				if (allowed.length === 0) {
					const reasons = candidates.map((entry) => refusalReason(entry.address, allowPrivate)).join('; ');
					return callback(new RefusedTargetError(`${hostname} resolves only to refused addresses: ${reasons || 'none'}`), '', 0);
				}
				if (options.all) return callback(null, allowed);
				callback(null, allowed[0].address, allowed[0].family);
			},
			(err: NodeJS.ErrnoException) => callback(err, '', 0),
		);
	};
}
